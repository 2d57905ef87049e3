import { repositoryFiles } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption, repoPathArg } from '../../cli/options.js';
import { UsageError } from '../../errors.js';
import { plural } from '../../parse.js';
import { repoPath } from '../../git/content.js';
import { refOption, refOrDefault } from './shared.js';

interface BlameRange {
  commit: { id: string; author_name: string; authored_date: string; message: string };
  lines: string[];
}

/** A line range as git blame takes it: START,END; START (or START,) to the end; ,END from the first line; START,+COUNT. */
interface Lines {
  start: number;
  end?: number;
  text: string;
}

function parseLines(value: string): Lines {
  const match = /^(\d*)(?:,(\+?)(\d*))?$/.exec(value.trim());
  const bad = () => new UsageError(`-L takes START,END, START, START, ,END or START,+COUNT (1-based line numbers), got "${value}"`);
  if (!match || (!match[1] && !match[3])) throw bad();
  const start = match[1] ? Number(match[1]) : 1;
  const end = !match[3] ? undefined : match[2] ? start + Number(match[3]) - 1 : Number(match[3]);
  if (start < 1 || (end !== undefined && end < start)) throw bad();
  return { start, end, text: value.trim() };
}

export default defineCommand<{ project?: string; path: string; ref?: string; lines?: Lines }>({
  effect: 'read',
  description: 'One record per line: the line number, the commit that last changed it, its author and date, and the text. -L picks lines as git blame does; a range past the end of the file is refused (exit 2) with its length.',
  examples: ['forgectl files blame README.md --project acme/api', 'forgectl files blame README.md --ref v1.1.0 -L 3,5 --project acme/api -o json', 'forgectl files blame README.md -L 3 --project acme/api'],
  args: [repoPathArg],
  options: [projectOption, refOption(false), { flags: '-L, --lines <range>', description: 'only these lines: START,END, START (to the end), ,END or START,+COUNT', parse: parseLines }],
  columns: ['line', 'commit', 'author', 'date', 'text'],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const path = repoPath(opts.path);
    const ref = await refOrDefault(ctx, project, opts.ref);
    const blame = (range?: { start: number; end: number }) => ctx.api.call<BlameRange[]>(repositoryFiles.routes.blame, { project, file_path: path, ref, range });
    const numbered = (ranges: BlameRange[], first: number) => {
      let line = first;
      return ranges.flatMap((range) =>
        range.lines.map((text) => ({ line: line++, commit: range.commit.id.slice(0, 8), author: range.commit.author_name, date: range.commit.authored_date.slice(0, 10), text, commit_id: range.commit.id })),
      );
    };
    const { lines } = opts;
    // A closed range is asked of the service; an open one (to the end) needs the whole file.
    const rows = lines?.end !== undefined ? numbered(await blame({ start: lines.start, end: lines.end }), lines.start) : numbered(await blame(), 1);
    if (!lines) return rows;
    const picked = rows.filter((row) => row.line >= lines.start && (lines.end === undefined || row.line <= lines.end));
    if (!picked.length || (lines.end !== undefined && picked[picked.length - 1].line < lines.end)) {
      const length = lines.end !== undefined && picked.length ? picked[picked.length - 1].line : numbered(await blame(), 1).length;
      throw new UsageError(`-L ${lines.text}: ${path} has ${plural(length, 'line')} at ${ref}`);
    }
    return picked;
  },
});
