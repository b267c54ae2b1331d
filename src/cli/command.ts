/**
 * What every `souk` command declares (its words, arguments, options, help and example) and the one
 * parser that reads a command line against that declaration. Each command's help is written from
 * the declaration, and anything it does not declare is refused with one line, never ignored.
 */
import { parseArgs } from 'node:util';
import { CliError } from './context.js';

/** Usage errors exit 2, as the shell's own builtins do; failures of the work itself exit 1. */
export const USAGE_EXIT = 2;

export interface Argument {
  /** As shown in the usage line: USER_ID, FILE|-. */
  name: string;
  help: string;
  optional?: boolean;
  /** Takes any number of values (at least one unless optional). */
  repeats?: boolean;
}

/** An option takes a value, unless it is a flag (`--open`), which takes none and reads as "true" when given. */
export interface Option {
  /** The value's placeholder in the usage line: SECONDS, T; '' for a flag. */
  value: string;
  help: string;
  required?: boolean;
  flag?: boolean;
}

const optionShown = (name: string, o: Option) => (o.flag ? `--${name}` : `--${name} ${o.value}`);

export interface Parsed {
  args: string[];
  options: Partial<Record<string, string>>;
}

export interface Command {
  /** Its words after `souk`: "token", "webhooks list". */
  name: string;
  /** One line, for `souk --help`. */
  summary: string;
  /** What it does, for its own --help: a few sentences. */
  about: string;
  args?: Argument[];
  options?: Record<string, Option>;
  /** Whole command lines, each beginning with `souk NAME`. */
  examples: string[];
  run(parsed: Parsed): Promise<void>;
}

function argumentShown(a: Argument): string {
  const shown = a.repeats ? `${a.name}...` : a.name;
  return a.optional ? `[${shown}]` : shown;
}

export function usageLine(command: Command): string {
  const options = Object.entries(command.options ?? {}).map(([name, o]) =>
    o.required ? optionShown(name, o) : `[${optionShown(name, o)}]`,
  );
  return ['souk', command.name, ...(command.args ?? []).map(argumentShown), ...options].join(' ');
}

/** Two columns: the names padded to the longest, then their help. */
export function columns(rows: Array<[string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 3;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
}

/** A paragraph broken into lines of at most `width` characters, between words. */
function wrapped(text: string, width = 100): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

export function helpText(command: Command, subcommands: Command[] = []): string {
  const lines = [`usage: ${usageLine(command)}`, '', ...wrapped(command.about)];
  if (command.args?.length) lines.push('', 'arguments:', ...columns(command.args.map((a) => [a.name, a.help])));
  const options: Array<[string, string]> = Object.entries(command.options ?? {}).map(([name, o]) => [optionShown(name, o), o.help]);
  lines.push('', 'options:', ...columns([...options, ['-h, --help', 'print this help']]));
  if (subcommands.length) {
    lines.push('', 'commands:', ...columns(subcommands.map((c) => [c.name, c.summary])));
  }
  lines.push('', command.examples.length === 1 ? 'example:' : 'examples:', ...command.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

export const usageError = (who: string, problem: string): CliError =>
  new CliError(`${who ? `${who}: ` : ''}${problem}; see souk ${who ? `${who} ` : ''}--help`, USAGE_EXIT);

/** Whether the words ask for help: -h or --help before any `--`. */
export function asksForHelp(argv: string[]): boolean {
  for (const word of argv) {
    if (word === '--') return false;
    if (word === '--help' || word === '-h') return true;
  }
  return false;
}

/** Reads the words after the command's name; throws a usage error naming the first thing it does not take. */
export function parseCommandLine(command: Command, argv: string[]): Parsed {
  const declared = command.options ?? {};
  // Not strict: parseArgs's own messages are worded for programmers; each case is refused below instead.
  const { tokens } = parseArgs({
    args: argv,
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: Object.fromEntries(
      Object.entries(declared).map(([name, o]) => [name, { type: o.flag ? ('boolean' as const) : ('string' as const) }]),
    ),
  });
  const args: string[] = [];
  const options: Parsed['options'] = {};
  for (const token of tokens) {
    if (token.kind === 'positional') args.push(token.value);
    if (token.kind !== 'option') continue;
    const option = Object.hasOwn(declared, token.name) ? declared[token.name] : undefined;
    if (!option || token.rawName !== `--${token.name}`) throw usageError(command.name, `unknown option ${token.rawName}`);
    if (option.flag) {
      if (token.value !== undefined) throw usageError(command.name, `${token.rawName} takes no value`);
      options[token.name] = 'true';
      continue;
    }
    if (token.value === undefined || token.value === '') throw usageError(command.name, `${token.rawName} needs a value (${option.value})`);
    options[token.name] = token.value;
  }
  checkArguments(command, args);
  for (const [name, option] of Object.entries(declared)) {
    if (option.required && options[name] === undefined) throw usageError(command.name, `missing --${name} ${option.value}`);
  }
  return { args, options };
}

function checkArguments(command: Command, args: string[]): void {
  const declared = command.args ?? [];
  const required = declared.filter((a) => !a.optional);
  if (args.length < required.length) throw usageError(command.name, `missing ${required[args.length]!.name}`);
  if (!declared.some((a) => a.repeats) && args.length > declared.length) {
    throw usageError(command.name, `unexpected argument ${args[declared.length]}`);
  }
}
