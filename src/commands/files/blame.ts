import { repositoryFiles } from '../../api/resources/files.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { UsageError } from '../../errors.js';
import { repoPath } from '../../git/content.js';
import { refOption } from './shared.js';

interface BlameRange {
  commit: { id: string; author_name: string; authored_date: string; message: string };
  lines: string[];
}

function parseLines(value: string): { start: number; end: number } {
  const match = /^(\d+),(\d+)$/.exec(value.trim());
  if (!match || Number(match[1]) < 1 || Number(match[2]) < Number(match[1])) throw new UsageError(`-L takes START,END line numbers (1-based, START ≤ END), got "${value}"`);
  return { start: Number(match[1]), end: Number(match[2]) };
}

export default defineCommand<{ project?: string; path: string; ref: string; lines?: { start: number; end: number } }>({
  description: 'One record per line: the line number, the commit that last changed it, its author and date, and the text.',
  examples: ['forgectl files blame README.md --ref main --project acme/api', 'forgectl files blame src/main.rb --ref main -L 10,20 --project acme/api -o json'],
  args: ['<path>'],
  options: [projectOption, refOption(true), { flags: '-L, --lines <start,end>', description: 'only these lines', parse: parseLines }],
  columns: ['line', 'commit', 'author', 'date', 'text'],
  async run(opts, ctx) {
    const ranges = await ctx.api.call<BlameRange[]>(repositoryFiles.routes.blame!, {
      project: ctx.project(opts.project),
      file_path: repoPath(opts.path),
      ref: opts.ref,
      range: opts.lines ? { start: opts.lines.start, end: opts.lines.end } : undefined,
    });
    let line = opts.lines?.start ?? 1;
    return ranges.flatMap((range) =>
      range.lines.map((text) => ({ line: line++, commit: range.commit.id.slice(0, 8), author: range.commit.author_name, date: range.commit.authored_date.slice(0, 10), text, commit_id: range.commit.id })),
    );
  },
});
