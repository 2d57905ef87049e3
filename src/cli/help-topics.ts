import { deferredItem, deferredParagraph } from './help-layout.js';

/**
 * `forgectl help TOPIC`: what applies to every command, in one place. A topic is written as paragraphs, lists of
 * terms and examples; its paragraphs and lists are laid out to the width they are printed at (help-layout.ts), as
 * a command's help is, and its examples are kept as written.
 */

/** A paragraph, wrapped to the width (indented by `indent` columns). */
const paragraph = (text: string, indent = 0): string => deferredParagraph(text, indent);

/** Terms and their descriptions, the descriptions aligned beside the longest term and wrapped beside it. */
function list(rows: Array<[term: string, description: string]>): string {
  const termWidth = Math.max(...rows.map(([term]) => term.length));
  return rows.map(([term, description]) => deferredItem(term, termWidth, description)).join('\n');
}

/** Command lines, shown as written (4 columns in). */
const examples = (...lines: string[]): string => lines.map((line) => `    ${line}`).join('\n');

/** A topic's text: its blocks, a blank line between groups (a group is a list of blocks printed line after line). */
const topic = (...groups: Array<string | string[]>): string => `${groups.map((group) => (Array.isArray(group) ? group.join('\n') : group)).join('\n\n')}\n`;

export const HELP_TOPICS: Record<string, { summary: string; text: string }> = {
  environment: {
    summary: 'Environment variables forgectl reads',
    text: topic(
      'Environment variables',
      [
        paragraph('Connection (flags win over these; these win over the profile):'),
        list([
          ['FORGECTL_URL', "instance URL, as --server; a profile's token goes only to the profile's own URL"],
          ['FORGECTL_TOKEN', 'access token for this run (never on the command line); a profile named with -p or FORGECTL_PROFILE uses its own token instead, saying so once (and is refused when it has none)'],
          ['FORGECTL_TOKEN_TYPE', 'private (default), job or oauth'],
          ['FORGECTL_PROFILE', 'profile to use, as -p'],
          ['FORGECTL_CONFIG_DIR', 'folder of config.json (else $XDG_CONFIG_HOME/forgectl, else ~/.config/forgectl)'],
        ]),
      ],
      [
        paragraph('Inside a CI job, when nothing else is configured:'),
        list([
          ['CI_API_V4_URL, CI_SERVER_URL', "the job's instance"],
          ['CI_JOB_TOKEN', "sent as JOB-TOKEN, only to the job's own instance"],
        ]),
      ],
      [
        paragraph('Shards of a fleet command, plan or export (--shard I/N wins over these):'),
        list([
          ['CI_NODE_INDEX, CI_NODE_TOTAL', 'this job is shard CI_NODE_INDEX (from 1) of CI_NODE_TOTAL, as parallel CI jobs set them'],
          ['JOB_COMPLETION_INDEX', 'this pod is shard JOB_COMPLETION_INDEX (from 0) of a Kubernetes Indexed Job; wins over CI_NODE_INDEX'],
          ['FORGECTL_SHARD_TOTAL', "how many shards there are, with JOB_COMPLETION_INDEX (the Job's completions), as --shard-total"],
        ]),
      ],
      [
        paragraph('Where auth login saves a token (the OS keyring at a terminal, else the config file):'),
        list([
          ['CI', 'set (not to false or 0), as CI services set it: the config file, never the keyring'],
          ['DBUS_SESSION_BUS_ADDRESS', 'the session bus the keyring answers on (Linux; else $XDG_RUNTIME_DIR/bus); without one, the config file'],
        ]),
      ],
      [
        paragraph('Network:'),
        list([
          ['HTTPS_PROXY, HTTP_PROXY', 'proxies (loopback addresses are always reached directly)'],
          ['NO_PROXY', 'hosts reached without a proxy'],
          ['NODE_EXTRA_CA_CERTS', 'more trusted CA certificates (PEM), as --ca-file'],
        ]),
      ],
      [
        paragraph('Output and diagnostics:'),
        list([
          ['NO_COLOR', 'no colour when set to anything but empty (as --no-color); FORCE_COLOR forces it'],
          ['TERM=dumb', 'no colour'],
          ['FORGECTL_DEBUG=1', 'stack traces with errors'],
          ['FORGECTL_ALERT_KEY', "the alert integration's key for alerts send|resolve"],
          ['FORGECTL_NO_CODE_CACHE=1', 'no cache of compiled code (also NODE_DISABLE_COMPILE_CACHE=1); the cache is in $XDG_CACHE_HOME/forgectl, else ~/.cache/forgectl'],
        ]),
      ],
    ),
  },
  'exit-codes': {
    summary: 'What each exit code means',
    text: topic(
      'Exit codes',
      list([
        ['0', 'success (an empty list is success)'],
        ['1', 'unexpected internal error, or a --jq expression failed on a record (stderr names the record)'],
        ['2', 'usage: unknown command or flag, invalid value, a file that cannot be read or written, missing --yes without a terminal, or "no" to a confirmation'],
        ['3', 'configuration: no profile, URL or token; a config file with unsafe permissions; unreadable config or CA file'],
        ['4', 'authentication or permission: 401, 403'],
        ['5', 'not found: 404'],
        ['6', 'rejected by the server: 400, 405, 409, 412, 422 (also: a token rotation already running)'],
        ['7', 'rate limited: 429 after the retries'],
        ['8', 'server or network: 5xx after the retries, timeout, DNS, TLS, connection failure, an answer that is not JSON'],
        ['9', 'finished with attention needed: plan found drift (changes to apply: so "plan && apply" never applies), some projects of a fleet run or items of a bulk command failed, an audit found what it looks for, recovery files are pending (tokens recover --list), or a token was rotated and saved but the check as the new token failed'],
        ['10', 'a token was rotated but could not be saved where asked: the new token is in the recovery file named on stderr'],
        ['130', 'interrupted (Ctrl-C, SIGINT); 143 terminated (SIGTERM). One line on stderr says what was left undone.'],
      ]),
      paragraph('A reader that closes the output early (forgectl users list --all | head -1) ends a command that only reads, with 0; a command that changes things (apply) finishes its work, writing nothing more, and exits with its own code.'),
    ),
  },
  formatting: {
    summary: 'Output formats, --fields, --jq, --template, tables and pipes',
    text: topic(
      'Output formats (-o, --output)',
      list([
        ['table', 'the default. On a terminal: aligned columns under a header, fitted to the terminal\'s width (headers cut first, then times shown as dates, then the widest values cut with …, never the id or the name of each record; then the last columns are left out, named on stderr, unless --fields picked them); a record as "key  value" lines. In a pipe: tab-separated lines without a header or truncation, times in ISO 8601, tabs, line breaks and backslashes escaped, an object or array as its compact JSON (for cut, awk)'],
        ['json', 'a list is one JSON array (also with --all), a record one object'],
        ['ndjson', 'one record per line, written as pages arrive (memory stays flat on any list size)'],
        ['yaml', 'YAML'],
        ['csv', 'RFC 4180, with a header row'],
      ]),
      paragraph('--fields id,name,owner.name picks fields (dotted paths into records) in every format; through an array a name gives each element\'s (push_access_levels.access_level), as jq\'s .[] does; an unknown field exits 2 and lists the known ones. The profile\'s "output" key sets a default format.'),
      paragraph('stdout carries data only; progress, hints, warnings and errors go to stderr. Control characters in text from the server are shown as visible \\x1b escapes in tables, TSV, CSV, errors, notes and prompts (and escaped in JSON and YAML on a terminal). When a list is cut short (a page fails, or Ctrl-C), stderr says "output is incomplete: N records written" and a JSON array already started is closed. Lists show the first page and say so on stderr when more exist; --all fetches every page, --limit N stops after N records.'),
      paragraph("--jq EXPRESSION (jq's own language: the real jq 1.7.1, built into forgectl)"),
      [
        paragraph('On a list the expression runs on each record as it arrives (streaming: memory stays flat with --all on any list size); with --slurp it runs once, on all the records as one array (of one, for a single record); on a single record, once. Each result is a line: strings raw (as jq -r), anything else as compact JSON. The records are read as JSON whatever -o or the profile says (-o json and -o ndjson are accepted and change nothing; other formats, --fields and --template are refused with exit 2). $ENV and env hold the environment without the variables whose names suggest a secret (…TOKEN, …SECRET, …PASSWORD, …KEY…); input and inputs are not available.', 2),
        examples(
          "forgectl users list --all --jq '.username'",
          "forgectl users list --all --slurp --jq 'length'",
          "forgectl api /users --paginate --jq 'select(.is_admin) | .username'",
        ),
        paragraph('A bad expression exits 2 before anything is sent, with jq\'s message, line and column; so does one that calls input or inputs. An error while it runs (.a.b on a string) exits 1 naming the record ("on record 7, index 6"), after the results the expression gave on that record before it, as jq prints them; on a list the records before it were already printed and stderr says "output is incomplete: N records written". jq running out of memory (it has 2 GB: a value too large, a recursion without end) exits 1 too. halt stops the run there, with exit 0. An answer that is not JSON (an HTML page) is a failure of the server, exit 8, with nothing printed.', 2),
        paragraph("On an answer of api the expression reads the answer's own text, so numbers keep the form they were written in (100000000000000000001, 1.0), as jq 1.7 keeps them; the records of other commands and of api --paginate are read as JavaScript reads numbers (17 significant digits).", 2),
      ],
      paragraph('--template TEXT|@FILE (Liquid templates, by the liquidjs library: no code runs, no file is read)'),
      [
        paragraph("Runs for each record (a line each, a line break added when missing); the record's fields are its variables.", 2),
        examples(
          "forgectl users list --all --template '{{ id }} {{ username }} joined {{ created_at | timeago }}'",
          'forgectl users list --template \'{% row id, username, state | color: "green" %}\'',
        ),
        paragraph('Besides Liquid\'s own filters (upcase, truncate, date, default …): timeago ("3 days ago"), color: "red" (green, yellow, blue, magenta, cyan, gray, bold, dim; painted only on a terminal, as other colour), and the tag row, whose cells are printed as aligned columns when the records end. Control characters in values are shown as visible \\x1b escapes. A template that does not parse, or is in Go\'s template language ({{range .}}, {{printf "%v" .id}}), exits 2 before anything is sent; a name that is not a field of the record exits 2 naming the fields ({% if name %} and {{ name | default: "-" }} take a field some records lack).', 2),
      ],
    ),
  },
};

export const HELP_TOPICS_LINE = `Help topics (forgectl help TOPIC): ${Object.keys(HELP_TOPICS).join(', ')}`;
