import { Command, InvalidArgumentError, type Option } from 'commander';
import { UsageError } from '../errors.js';
import { argName, argSpec, type CommandDef } from './command.js';
import { attachDefinition } from './program.js';

/** A value given for one option: its text, or true for a flag (or an option whose value may be left out, given bare). */
export interface OptionValue {
  /** The option's long flag: '--project'; '--no-stats' for a negation. */
  flag: string;
  value: string | true;
}

/**
 * The options object a command's run() gets, built from values given by option and by argument (a tool call's
 * input) instead of from words: the command's own options (with its list and fleet options) as attachDefinition adds
 * them to the command line, each value through the option's own parser, their defaults, and the required ones
 * checked, as commander does for argv. No value is ever read as an option, whatever it holds.
 */
export function optionsFromValues(def: CommandDef, values: OptionValue[], args: Array<string | string[] | undefined>): Record<string, unknown> {
  const command = new Command();
  attachDefinition(command, def);
  // Commander keeps the defaults (and true for a lone --no-x) from the moment each option is added.
  const opts: Record<string, unknown> = { ...command.opts() };
  for (const { flag, value } of values) {
    const option = command.options.find((candidate) => candidate.long === flag);
    if (!option) throw new Error(`${flag} is not an option of this command`);
    opts[option.attributeName()] = parsedValue(option, value, opts[option.attributeName()]);
  }
  for (const option of command.options) {
    if (option.mandatory && opts[option.attributeName()] === undefined) throw new UsageError(`required option '${option.flags}' not specified`);
  }
  (def.args ?? []).forEach((arg, index) => {
    const spec = argSpec(arg);
    const value = args[index];
    if (value === undefined && spec.startsWith('<')) throw new UsageError(`missing required argument '${argName(arg)}'`);
    opts[argName(arg)] = value === undefined && spec.includes('...') ? [] : value;
  });
  return opts;
}

/** What commander stores for an option given this value (its handling of `option:NAME`, without the words). */
function parsedValue(option: Option, given: string | true, previous: unknown): unknown {
  const takesValue = option.required || option.optional;
  if (given !== true && !takesValue) throw new Error(`${option.long} takes no value`);
  if (given === true && option.required) throw new Error(`${option.long} needs a value`);
  // Commander's own order: the bare flag's preset, then the parser, then true or false for a flag without a value.
  let value: unknown = given === true ? (option.presetArg ?? (option.optional ? null : undefined)) : given;
  if (value !== null && option.parseArg) {
    try {
      value = option.parseArg(value as string, previous);
    } catch (error) {
      if (error instanceof InvalidArgumentError) throw new UsageError(`option '${option.flags}' argument '${String(value)}' is invalid. ${error.message}`);
      throw error;
    }
  }
  if (value === null || value === undefined) return option.negate ? false : true;
  return value;
}
