import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { fileProblem } from '../write.js';
import type { Context } from './command.js';

/**
 * Write-only values (webhook secrets, custom header values, URL variable values) never come from argv, where `ps`
 * and shell history see them: they come from an environment variable, a file, or stdin (a masked prompt on a
 * terminal). On the command line such a value is named by its source: `env:VAR`, `file:PATH` or `-` (stdin).
 */

export type SecretSource = { env: string } | { file: string } | { stdin: true };

const describe = (source: SecretSource): string => ('env' in source ? `env:${source.env}` : 'file' in source ? `file:${source.file}` : 'stdin');

/** Parses `env:VAR`, `file:PATH` or `-`; anything else is refused as a literal secret (exit 2, nothing sent). */
export function parseSecretSource(label: string, text: string): SecretSource {
  if (text === '-') return { stdin: true };
  const env = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(text);
  if (env) return { env: env[1] };
  if (text.startsWith('file:') && text.length > 5) return { file: text.slice(5) };
  throw new UsageError(`${label} is write-only and is not accepted on the command line`, 'name where it comes from instead: env:VARIABLE, file:PATH, or - for stdin');
}

/** `NAME=SOURCE` pairs of a repeatable option (--header X-Api-Key=env:API_KEY). */
export function parseNamedSecret(option: string, what: string) {
  return (value: string, previous: Array<[string, SecretSource]> = []): Array<[string, SecretSource]> => {
    const index = value.indexOf('=');
    if (index <= 0) throw new UsageError(`${option} takes NAME=SOURCE (SOURCE: env:VARIABLE, file:PATH or -), got "${value.replace(/=.*/, '=…')}"`);
    const name = value.slice(0, index);
    return [...previous, [name, parseSecretSource(`the value of ${what} ${name}`, value.slice(index + 1))]];
  };
}

/** Refuses more than one value from stdin in one run (stdin can be read once). */
export function checkOneStdin(sources: SecretSource[]): void {
  if (sources.filter((s) => 'stdin' in s).length > 1) throw new UsageError('only one value can come from stdin', 'take the others from env:VARIABLE or file:PATH');
}

/** Reads a value from its source; an empty value is refused. One trailing newline is dropped. */
export async function readSecret(ctx: Context, label: string, source: SecretSource): Promise<string> {
  let value: string | undefined;
  if ('env' in source) {
    value = ctx.env[source.env];
    if (value === undefined) throw new UsageError(`${label}: the environment variable ${source.env} is not set`);
  } else if ('file' in source) {
    try {
      value = readFileSync(source.file, 'utf8');
    } catch (error) {
      throw new UsageError(`${label}: cannot read ${source.file}: ${fileProblem(error)}`);
    }
  } else {
    value = ctx.io.streams.stdin.isTTY ? await ctx.prompt.password(label) : await ctx.io.readStdin();
  }
  value = value.replace(/\r?\n$/, '');
  if (!value) throw emptySecret(label, source);
  return value;
}

/** "no token to identify: stdin is empty", from a label that also asks for the value ("Token to identify"). */
function emptySecret(label: string, source: SecretSource): UsageError {
  const what = label.startsWith('-') ? `value for ${label}` : label.replace(/^(the|your) /i, '').replace(/^[A-Z](?=[a-z])/, (first) => first.toLowerCase());
  const hint = 'stdin' in source ? "pipe it in (printf '%s\\n' \"$VALUE\" | forgectl …), or run at a terminal to be asked for it" : undefined;
  return new UsageError(`no ${what}: ${describe(source)} is empty`, hint);
}
