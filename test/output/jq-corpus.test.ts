// forgectl's --jq against jq itself: every case of jq 1.7.1's own test file (test/fixtures/jq-1.7.1/jq.test, copied
// unchanged) run as a user runs it, `forgectl api /case --jq PROGRAM`, against a local server that answers each
// case's input as it is written there (a null, a byte order mark, NaN, integers beyond 2^53 …); an array's elements
// are one input together, as jq reads them, with --slurp. The results are compared with those the suite expects as
// jq's own test runner compares them.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, tempDir, type RunResult } from '../helpers/cli.js';

interface Case {
  line: number;
  program: string;
  input: string;
  /** The results, one JSON text each; for a case that must not compile, jq's message. */
  expected: string[];
  mustFail: boolean;
}

/** The cases of a jq test file, read as jq's test runner reads them (src/jq_test.c). */
function readCases(text: string): Case[] {
  const lines = text.split('\n');
  const skipped = (line: string) => /^[ \t]*(#|$)/.test(line);
  const cases: Case[] = [];
  let mustFail = false;
  for (let i = 0; i < lines.length; ) {
    if (skipped(lines[i])) i++;
    else if (lines[i] === '%%FAIL' || lines[i] === '%%FAIL IGNORE MSG') {
      mustFail = true;
      i++;
    } else {
      const start = i;
      const [program, input] = [lines[i], lines[i + 1]];
      i += 2;
      const expected = mustFail ? [input] : [];
      while (!mustFail && i < lines.length && !skipped(lines[i])) expected.push(lines[i++]);
      cases.push({ line: start + 1, program, input: mustFail ? '' : input, expected, mustFail });
      mustFail = false;
    }
  }
  return cases;
}

/** A JSON value with each number as its decimal value (1.0 and 1 alike, 100000000000000000001 whole), keys sorted. */
function canonical(text: string): string {
  let at = 0;
  const blank = () => {
    while (/[ \t\r\n]/.test(text[at] ?? '')) at++;
  };
  const string = (): string => {
    const [quoted] = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(at))!;
    at += quoted.length;
    return quoted;
  };
  const value = (): string => {
    blank();
    if (text[at] === '{') {
      const pairs: string[] = [];
      for (at++, blank(); text[at] !== '}'; blank(), text[at] === ',' && at++) {
        blank();
        const key = JSON.stringify(JSON.parse(string()));
        blank();
        at++;
        pairs.push(`${key}:${value()}`);
      }
      at++;
      return `{${pairs.sort().join(',')}}`;
    }
    if (text[at] === '[') {
      const items: string[] = [];
      for (at++, blank(); text[at] !== ']'; blank(), text[at] === ',' && at++) items.push(value());
      at++;
      return `[${items.join(',')}]`;
    }
    if (text[at] === '"') return JSON.stringify(JSON.parse(string()));
    const [token] = /^(true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(at)) ?? [''];
    if (!token) throw new Error(`not JSON at ${at}: ${text}`);
    at += token.length;
    return /^[tfn]/.test(token) ? token : decimal(token);
  };
  const result = value();
  blank();
  if (at !== text.length) throw new Error(`not one JSON value: ${text}`);
  return result;
}

/** A number as digits and exponent, without the zeros that do not change its value. */
function decimal(number: string): string {
  const [, sign, whole, fraction = '', exponent = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(number)!;
  let digits = (whole + fraction).replace(/^0+/, '');
  let power = Number(exponent) - fraction.length;
  if (!digits) return '0';
  for (; digits.endsWith('0'); power++) digits = digits.slice(0, -1);
  return `${sign}${digits}e${power}`;
}

/**
 * Whether forgectl printed the expected results: strings raw, the rest as JSON, a result a line, none more. As in
 * jq's runner, an error after the expected results does not fail a case (exit 2, the results printed before it).
 */
function agrees(test: Case, result: RunResult): boolean {
  if (result.code !== 0 && result.code !== 2) return false;
  let rest = result.stdout;
  for (const expected of test.expected) {
    const value = JSON.parse(expected) as unknown;
    if (typeof value === 'string') {
      if (!rest.startsWith(`${value}\n`)) return false;
      rest = rest.slice(value.length + 1);
      continue;
    }
    const end = rest.indexOf('\n');
    if (end < 0) return false;
    try {
      if (canonical(rest.slice(0, end)) !== canonical(expected)) return false;
    } catch {
      return false;
    }
    rest = rest.slice(end + 1);
  }
  return rest === '';
}

const cases = readCases(readFileSync(new URL('../fixtures/jq-1.7.1/jq.test', import.meta.url), 'utf8'));
const runnable = cases.filter((test) => !test.mustFail);

/**
 * The cases whose results differ, and why: jq's modules (import, include, modulemeta) are files beside jq's test
 * file, and --jq reads no files; NaN and Infinity are not JSON, so an answer holding them is a server's failure
 * (exit 8); input reads the next input, and each record runs by itself (exit 2 before any request).
 */
const DIFFER: Record<number, string> = {
  ...Object.fromEntries([1584, 1588, 1592, 1596, 1601, 1605, 1609, 1613, 1641, 1645, 1649, 1661].map((line) => [line, 'a module'])),
  1147: 'NaN in the input',
  1937: 'NaN in the input',
  2019: 'NaN in the input',
  1949: 'input',
};

let server: Server;
let answer = '';
let requests = 0;
let env: Record<string, string>;
beforeAll(async () => {
  server = createServer((_request, response) => {
    requests++;
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  env = { FORGECTL_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, FORGECTL_TOKEN: 'test-token', FORGECTL_CONFIG_DIR: tempDir() };
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** forgectl api --jq PROGRAM on the case's input. */
function forgectl(test: Case): Promise<RunResult> {
  answer = test.input;
  const slurp = test.input.replace(/^\uFEFF/, '').trimStart().startsWith('[');
  return run(['api', '/case', ...(slurp ? ['--slurp'] : []), '--jq', test.program], { env });
}

describe("forgectl api --jq on the cases of jq 1.7.1's own test file", () => {
  it(`gives the results the suite expects on ${runnable.length - Object.keys(DIFFER).length} of ${runnable.length} cases, the others differing as documented`, async () => {
    const differ: Record<number, string> = {};
    for (const test of runnable) {
      const result = await forgectl(test);
      if (!agrees(test, result)) differ[test.line] = DIFFER[test.line] ?? `${test.program} gave ${JSON.stringify(result.stdout)} ${result.stderr}`;
    }
    expect(differ).toEqual(DIFFER);
  }, 120_000);

  it('refuses every program the suite expects not to compile: exit 2, before any request', async () => {
    requests = 0;
    for (const test of cases.filter((test) => test.mustFail)) {
      const result = await forgectl(test);
      expect(result.code, test.program).toBe(2);
      expect(result.stderr, test.program).toMatch(/^error: --jq: /);
    }
    expect(requests).toBe(0);
  });
});
