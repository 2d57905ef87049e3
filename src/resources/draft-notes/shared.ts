import type { OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseChoice, parseInteger, parseNumber } from '../../parse.js';
import { parseFullSha } from '../merge-requests/review-options.js';

export const noteTextOptions: OptionDef[] = [
  { flags: '--note <text>', description: 'the comment (Markdown, at most 1,000,000 characters)' },
  { flags: '--note-file <file>', description: 'read the comment from a file, - for stdin', localFile: true },
];

const LINE_RANGE_KEYS = ['line_code', 'type', 'old_line', 'new_line'];

/** One end of a multi-line range: line_code=…,type=new,new_line=12. */
function parseLineRangeEnd(flag: string) {
  return (value: string): Record<string, string> => {
    const entries = value.split(',').map((pair) => pair.split('='));
    const bad = entries.find(([key, v]) => !LINE_RANGE_KEYS.includes(key) || v === undefined || v === '');
    if (bad) throw new UsageError(`${flag} takes ${LINE_RANGE_KEYS.map((k) => `${k}=…`).join(',')}; got "${value}"`);
    return Object.fromEntries(entries);
  };
}

/** The position fields of a line, image or file comment (position[…] of the service). */
export const positionOptions: OptionDef[] = [
  { flags: '--position-type <type>', description: 'text (a line; the default when paths are given), image or file', parse: parseChoice('--position-type', ['text', 'image', 'file']) },
  { flags: '--base-sha <sha>', description: 'position: base commit of the diff (merge request diff_refs.base_sha)', parse: parseFullSha('--base-sha') },
  { flags: '--start-sha <sha>', description: 'position: commit on the target branch the diff starts from', parse: parseFullSha('--start-sha') },
  { flags: '--head-sha <sha>', description: 'position: HEAD commit of the merge request', parse: parseFullSha('--head-sha') },
  { flags: '--old-path <path>', description: 'position: file path before the change (default: --new-path)' },
  { flags: '--new-path <path>', description: 'position: file path after the change (default: --old-path)' },
  { flags: '--old-line <n>', description: 'position: line number before the change (removed or unchanged lines)', parse: parseInteger('--old-line', 1) },
  { flags: '--new-line <n>', description: 'position: line number after the change (added or unchanged lines)', parse: parseInteger('--new-line', 1) },
  { flags: '--line-range-start <fields>', description: 'first line of a multi-line comment: line_code=…,type=new|old,old_line=…,new_line=…', parse: parseLineRangeEnd('--line-range-start') },
  { flags: '--line-range-end <fields>', description: 'last line of a multi-line comment, as --line-range-start', parse: parseLineRangeEnd('--line-range-end') },
  { flags: '--width <n>', description: 'position: image width (image comments)', parse: parseInteger('--width', 1) },
  { flags: '--height <n>', description: 'position: image height (image comments)', parse: parseInteger('--height', 1) },
  { flags: '--x <n>', description: 'position: x coordinate in the image', parse: parseNumber('--x') },
  { flags: '--y <n>', description: 'position: y coordinate in the image', parse: parseNumber('--y') },
];

export interface PositionOptions {
  positionType?: string;
  baseSha?: string;
  startSha?: string;
  headSha?: string;
  oldPath?: string;
  newPath?: string;
  oldLine?: number;
  newLine?: number;
  lineRangeStart?: Record<string, string>;
  lineRangeEnd?: Record<string, string>;
  width?: number;
  height?: number;
  x?: number;
  y?: number;
}

/** position[…] from the flags, checked as the service requires; undefined when no position flag was given. */
export function positionOf(opts: PositionOptions): Record<string, unknown> | undefined {
  const fields = ['positionType', 'baseSha', 'startSha', 'headSha', 'oldPath', 'newPath', 'oldLine', 'newLine', 'lineRangeStart', 'lineRangeEnd', 'width', 'height', 'x', 'y'] as const;
  if (fields.every((field) => opts[field] === undefined)) return undefined;
  const type = opts.positionType ?? (opts.oldPath ?? opts.newPath ? 'text' : undefined);
  if (!type) throw new UsageError('a position needs --position-type (text, image or file)');
  const missing = (['baseSha', 'startSha', 'headSha'] as const).filter((field) => !opts[field]);
  if (missing.length) throw new UsageError(`a position needs ${missing.map((f) => `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}`, 'take them from the diff_refs of the merge request');
  const oldPath = opts.oldPath ?? opts.newPath;
  const newPath = opts.newPath ?? opts.oldPath;
  if (type === 'text' && (!oldPath || opts.oldLine === undefined && opts.newLine === undefined)) {
    throw new UsageError('a line comment needs --new-path or --old-path, and --new-line or --old-line');
  }
  if ((opts.lineRangeStart === undefined) !== (opts.lineRangeEnd === undefined)) throw new UsageError('give both --line-range-start and --line-range-end');
  return {
    position_type: type,
    base_sha: opts.baseSha,
    start_sha: opts.startSha,
    head_sha: opts.headSha,
    old_path: oldPath,
    new_path: newPath,
    old_line: opts.oldLine,
    new_line: opts.newLine,
    line_range: opts.lineRangeStart ? { start: opts.lineRangeStart, end: opts.lineRangeEnd } : undefined,
    width: opts.width,
    height: opts.height,
    x: opts.x,
    y: opts.y,
  };
}
