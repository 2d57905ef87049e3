// Extracts the corpus of test/fixtures/jq-corpus.json from jq's own test suite (tests/jq.test of the jq
// repository, at the tag of the jq that --jq runs: jq-1.7.1): the cases that run one program on one plain JSON
// input. Left out: the cases that must fail to compile (%%FAIL), and those that need what a record filter does not
// have: other inputs (input, inputs, input_filename, input_line_number), modules (import, include, modulemeta,
// get_search_list), the environment ($ENV, env), the program's arguments ($__prog_args, $named), the clock or the
// local time zone (now, localtime, mktime, gmtime, strflocaltime), stderr (debug, stderr) and halting.
// Run: node scripts/jq-corpus.mjs path/to/jq.test > test/fixtures/jq-corpus.json
import { readFileSync } from 'node:fs';

const EXCLUDED = /\b(input|inputs|input_filename|input_line_number|import|include|modulemeta|get_search_list|env|now|localtime|mktime|strflocaltime|gmtime|debug|stderr|halt|halt_error)\b|\$(__prog_args|named|ENV)\b/;
const lines = readFileSync(process.argv[2], 'utf8').split('\n');
const cases = [];
let i = 0;
const skipBlock = () => {
  while (i < lines.length && lines[i].trim() !== '') i++;
};
while (i < lines.length) {
  const line = lines[i];
  if (line.trim() === '' || line.startsWith('#')) {
    i++;
    continue;
  }
  if (line.startsWith('%%FAIL')) {
    skipBlock();
    continue;
  }
  const program = line;
  const at = i + 1;
  const input = lines[i + 1];
  i += 2;
  const expected = [];
  while (i < lines.length && lines[i].trim() !== '') expected.push(lines[i++]);
  let parsed = true;
  try {
    JSON.parse(input.replace(/^\uFEFF/, ''));
    expected.forEach((text) => JSON.parse(text));
  } catch {
    parsed = false; // inputs or results that are not one plain JSON text (several values, NaN, a byte order mark)
  }
  if (!parsed || input.startsWith('\uFEFF') || EXCLUDED.test(program)) continue;
  cases.push({ line: at, program, input, expected });
}
process.stdout.write(`${JSON.stringify({ source: 'jq 1.7.1, tests/jq.test (https://github.com/jqlang/jq/blob/jq-1.7.1/tests/jq.test), MIT licence', cases }, null, 1)}\n`);
