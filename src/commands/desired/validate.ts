import { defineCommand, type Context } from '../../cli/command.js';
import { DesiredFileError, parseDesiredState, type DesiredState, type Problem } from '../../desired/file.js';
import { desiredStateSchema } from '../../desired/schema.js';
import { UsageError } from '../../errors.js';
import { ResultWithExit, TextResult } from '../../output/result.js';
import { readText } from './shared.js';
import { plural } from '../../parse.js';

interface Options {
  file?: string;
  schema?: boolean;
}

export default defineCommand<Options>({
  effect: 'read',
  description: [
    'Checks a desired-state file offline, without connecting: its YAML, the JSON Schema editors use (print it with --schema; it',
    'ships as schema/desired-state.schema.json in the package), every value parsed as the command-line flags parse it (cron',
    'expressions, time zones, regexes, access levels, URLs), and the local files it names. Prints every problem as',
    'FILE:LINE:COLUMN: where: what, and exits 2 when there is one. -o json prints the result as one object: the file, valid (true or false),',
    'the scopes a valid file declares, and its problems (line, column, at, message, hint); -o ndjson and csv print the problems alone.',
  ].join(' '),
  examples: [
    'forgectl validate -f desired.yaml',
    'forgectl validate --schema > desired-state.schema.json   # for editors: # yaml-language-server: $schema=./desired-state.schema.json',
  ],
  options: [
    { flags: '-f, --file <file>', description: 'the desired-state file (YAML; - for stdin)', localFile: true },
    { flags: '--schema', description: 'print the JSON Schema of desired-state files instead' },
  ],
  async run(opts, ctx) {
    if (opts.schema) {
      if (opts.file) throw new UsageError('give -f FILE or --schema, not both');
      return new TextResult(`${JSON.stringify(desiredStateSchema(), null, 2)}\n`);
    }
    if (!opts.file) throw new UsageError('which file? give -f FILE', 'or --schema for the JSON Schema');
    const name = opts.file === '-' ? 'stdin' : opts.file;
    try {
      const state = await parseDesiredState(name, await readText(ctx, opts.file));
      ctx.io.note(`${name} is valid: ${plural(state.projects.length, 'project scope')}, ${plural(state.groups.length, 'group scope')}${Object.keys(state.instance).length ? ', the instance' : ''}`);
      return ctx.format === 'table' ? undefined : validation(ctx, name, state, []);
    } catch (error) {
      if (!(error instanceof DesiredFileError)) throw error;
      const found = ctx.format === 'table' ? new TextResult(`${error.lines().join('\n')}\n`) : validation(ctx, name, undefined, error.problems);
      return new ResultWithExit(found, 2, `${name}: ${plural(error.problems.length, 'problem')}`);
    }
  },
});

/** What validate found, as records: the whole result (json, yaml), or its problems one a record (ndjson, csv). */
function validation(ctx: Context, file: string, state: DesiredState | undefined, problems: Problem[]): unknown {
  const rows = problems.map((problem) => ({ file, line: problem.line ?? null, column: problem.column ?? null, at: problem.at, message: problem.message, hint: problem.hint ?? null }));
  if (ctx.format === 'ndjson' || ctx.format === 'csv') return rows;
  const scopes = state && { projects: state.projects.length, groups: state.groups.length, instance: Object.keys(state.instance).length > 0 };
  return { file, valid: !problems.length, scopes: scopes ?? null, problems: rows.map(({ file: _, ...problem }) => problem) };
}
