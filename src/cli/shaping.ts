import type { Env } from '../config/paths.js';
import { UsageError } from '../errors.js';
import type { JqProgram } from '../output/jq.js';
import type { Template } from '../output/template.js';
import { readLocalFile } from '../files.js';

/** The global options that shape printed records, as given on the command line. */
export interface ShapingFlags {
  jq?: string;
  slurp?: boolean;
  template?: string;
  output?: string;
  fields?: unknown;
}

/**
 * --jq, --slurp and --template, checked before anything is sent: the combinations that mean nothing are refused, the
 * expression is compiled by jq and the template parsed (exit 2 with their own messages). Each engine is loaded only
 * when its flag is given.
 */
export async function prepareShaping(flags: ShapingFlags, options: { env: Env; color: boolean; now: () => Date }): Promise<{ jq?: JqProgram; slurp?: boolean; template?: Template }> {
  if (flags.slurp && flags.jq === undefined) throw new UsageError('--slurp goes with --jq', "for example: --slurp --jq 'length'");
  if (flags.jq === undefined && flags.template === undefined) return {};
  const flag = flags.jq !== undefined ? '--jq' : '--template';
  if (flags.jq !== undefined && flags.template !== undefined) throw new UsageError('--jq and --template cannot be combined', "a template of the expression's results: --jq '…' alone prints them a line each");
  if (flags.fields !== undefined) throw new UsageError(`--fields and ${flag} cannot be combined`, flags.jq !== undefined ? "pick the fields in the expression: --jq '{id, name}'" : 'name the fields in the template');
  if (flags.output !== undefined && !(flags.jq !== undefined && (flags.output === 'json' || flags.output === 'ndjson'))) {
    throw new UsageError(`-o ${flags.output} and ${flag} cannot be combined: ${flag} prints its own lines`, flags.jq !== undefined ? '--jq reads the records as JSON whatever -o says' : undefined);
  }
  if (flags.jq !== undefined) {
    const { compileJq } = await import('../output/jq.js');
    return { jq: await compileJq(flags.jq, options.env), slurp: Boolean(flags.slurp) };
  }
  const text = flags.template!.startsWith('@') ? readLocalFile(flags.template!.slice(1), 'utf8') : flags.template!;
  const { compileTemplate } = await import('../output/template.js');
  return { template: compileTemplate(text, { color: options.color, now: options.now }) };
}
