import type { Context, OptionDef } from '../../cli/command.js';

/**
 * Masked CI/CD variables' values stay off pipes, files, CI logs and agents: `--show-values` prints them only at a
 * terminal (variables list and get, and api where it reads variables).
 */

/** --show-values of the commands that print CI/CD variables (variables list and get, api). */
export const showValuesOption: OptionDef = {
  flags: '--show-values',
  description: 'show the values of masked CI/CD variables too (only at a terminal; hidden values cannot be read back)',
};

/**
 * Whether masked values may be printed: --show-values at a terminal. Off a terminal (a pipe, a file, a CI log, an
 * agent) they never are, and the command says so.
 */
export function mayShowValues(opts: { showValues?: boolean }, ctx: Context): boolean {
  if (!opts.showValues) return false;
  if (ctx.io.stdoutIsTTY) return true;
  ctx.io.note('--show-values shows masked values only at a terminal: output that goes to a pipe or a file never carries them');
  return false;
}
