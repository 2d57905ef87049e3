/** Secret references of a desired-state file: their values reach request bodies only, never what apply prints. */
import { describe, expect, it } from 'vitest';
import { tempFile, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();
const WEBHOOK = 'https://hooks.slack.example.com/services/T000/B000/chat-secret-4b1d';
const USER_KEY = 'pushover-user-key-77c2e9';

const file = (text: string): string => tempFile(text);

describe('secrets of a desired-state file', () => {
  it('apply --dry-run shows no value read from a secret reference, whatever the setting is called', async () => {
    // pushover's user_key and a chat webhook given as a reference: names the generic redaction does not know.
    const desired = file(`groups:
  acme:
    integrations:
      slack: {webhook: {env: CHAT_WEBHOOK}, channel: "#ci"}
      pushover: {api_key: {env: CHAT_WEBHOOK}, user_key: {env: PUSHOVER_USER_KEY}, priority: "0"}
`);
    const result = await sandbox.run(['apply', '-f', desired, '--dry-run'], { env: { CHAT_WEBHOOK: WEBHOOK, PUSHOVER_USER_KEY: USER_KEY } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^PUT http:.*\/groups\/acme\/integrations\/slack$/m);
    expect(result.stdout).toContain('"channel": "#ci"');
    expect(result.stdout).toContain('"webhook": "[REDACTED]"');
    expect(result.stdout).toContain('"user_key": "[REDACTED]"');
    for (const secret of [WEBHOOK, USER_KEY]) expect(result.stdout + result.stderr).not.toContain(secret);
  });
});
