import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { DEBIAN_PACKAGES } from '../helpers/system.js';

it('.ci/run installs every program a test may need, and then requires them (no test passes CI by skipping)', () => {
  const script = readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8');
  const installed = /^packages="([^"]*)"$/m.exec(script)?.[1].split(' ').sort();
  expect(installed).toEqual(DEBIAN_PACKAGES);
  expect(script).toMatch(/^export FORGECTL_TEST_PROGRAMS=required$/m);
});
