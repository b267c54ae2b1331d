/** The `souk` admin CLI: finds the command the words name, reads its arguments, runs it. */
import { ConfigError } from '../config.js';
import { asksForHelp, helpText, parseCommandLine, usageError, usageLine, type Command } from './command.js';
import { CliError } from './context.js';
import { cliIo, withCliIo, type CliIo } from './io.js';
import { terminalSafe } from './terminal.js';
import { configCommand } from './commands/config.js';
import { demoCommand } from './commands/demo.js';
import { importCommand } from './commands/import.js';
import { jwtSecretCommand } from './commands/jwt-secret.js';
import { listingsDeleteCommand } from './commands/listings.js';
import { migrateCommand } from './commands/migrate.js';
import { messagesDeleteCommand, usersDisableCommand, usersEnableCommand } from './commands/moderation.js';
import { serveCommand } from './commands/serve.js';
import { settingsCommands } from './commands/settings.js';
import { tokenCommand } from './commands/token.js';
import { usersEraseCommand, usersExportCommand } from './commands/user-data.js';
import { usersSetPasswordCommand } from './commands/users.js';
import { webhooksCommands } from './commands/webhooks.js';
import { pusherCommands } from './commands/pusher.js';
import { reportsCommands } from './commands/reports.js';
import { deliveriesCommands } from './commands/deliveries.js';
import { mailCommands } from './commands/mail.js';
import { serverKeysCommands } from './commands/server-keys.js';
import { staffCommands } from './commands/staff.js';
import { auditCommands } from './commands/audit.js';

/** Every command, in the order `souk --help` lists them. */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  configCommand,
  migrateCommand,
  importCommand,
  tokenCommand,
  ...settingsCommands,
  jwtSecretCommand,
  listingsDeleteCommand,
  usersSetPasswordCommand,
  usersDisableCommand,
  usersEnableCommand,
  usersExportCommand,
  usersEraseCommand,
  messagesDeleteCommand,
  demoCommand,
  ...webhooksCommands,
  ...pusherCommands,
  ...reportsCommands,
  ...deliveriesCommands,
  ...mailCommands,
  ...serverKeysCommands,
  ...staffCommands,
  ...auditCommands,
];

/** The first words of commands named by two (webhooks, api-key, ...), each with its commands. */
export function commandGroups(): Map<string, Command[]> {
  const groups = new Map<string, Command[]>();
  for (const command of COMMANDS) {
    const [first, second] = command.name.split(' ');
    if (second !== undefined) groups.set(first!, [...(groups.get(first!) ?? []), command]);
  }
  return groups;
}

/** A usage line and its summary; a long usage line puts the summary on a line of its own. */
function listed(commands: readonly Command[]): string[] {
  const WIDTH = 34;
  return commands.flatMap((c) => {
    const usage = usageLine(c).slice('souk '.length);
    return usage.length < WIDTH - 3 ? [`  ${usage.padEnd(WIDTH - 2)}${c.summary}`] : [`  ${usage}`, `${' '.repeat(WIDTH)}${c.summary}`];
  });
}

const USAGE = [
  'usage: souk COMMAND [ARGUMENTS] [OPTIONS]',
  '',
  ...listed(COMMANDS),
  '',
  'souk COMMAND --help says what a command does, its arguments and options, with an example.',
  'Every command uses DATABASE_URL (default sqlite:./data/souk.db).',
  'Settings are environment variables: see the table in docs/configuration.md.',
].join('\n');

function groupHelp(group: string, commands: Command[]): string {
  return [`usage: souk ${group} COMMAND`, '', ...listed(commands), '', `souk ${group} COMMAND --help says more about each.`].join('\n');
}

function print(text: string): void {
  cliIo().stdout.write(`${terminalSafe(text)}\n`);
}

type Found = { command: Command; rest: string[] } | { group: string; commands: Command[]; rest: string[] };

/** What the first words name, and the words after them; a word that names nothing is refused. */
function lookUp(argv: string[]): Found {
  const [first, second] = argv as [string, ...string[]];
  const pair = COMMANDS.find((c) => c.name === `${first} ${second}`);
  if (pair) return { command: pair, rest: argv.slice(2) };
  const commands = commandGroups().get(first);
  const single = COMMANDS.find((c) => c.name === first);
  const rest = argv.slice(1);
  if (commands && second !== undefined && !second.startsWith('-')) throw usageError(first, `unknown command ${second}`);
  if (single) return { command: single, rest };
  if (commands) return { group: first, commands, rest };
  throw usageError('', `unknown ${first.startsWith('-') ? 'option' : 'command'} ${first}`);
}

/** What the words ask for: a text to print (help), or a command to run with its parsed line; a usage error throws. */
export function resolve(argv: string[]): { print: string } | { command: Command; parsed: ReturnType<typeof parseCommandLine> } {
  if (argv.length === 0 || ['help', '--help', '-h'].includes(argv[0]!)) {
    // `souk help webhooks list` is `souk webhooks list --help`.
    if (argv[0] === 'help' && argv.length > 1) return resolve([...argv.slice(1), '--help']);
    return { print: USAGE };
  }
  const found = lookUp(argv);
  if ('group' in found) {
    const { group, commands, rest } = found;
    if (asksForHelp(rest)) return { print: groupHelp(group, commands) };
    const option = rest.find((word) => word.startsWith('-'));
    if (option !== undefined) throw usageError(group, `unknown option ${option}`);
    throw usageError(group, `missing COMMAND (${commands.map((c) => c.name.split(' ')[1]).join(', ')})`);
  }
  const { command, rest } = found;
  if (asksForHelp(rest)) return { print: helpText(command, commandGroups().get(command.name) ?? []) };
  return { command, parsed: parseCommandLine(command, rest) };
}

async function run(argv: string[]): Promise<void> {
  const resolved = resolve(argv);
  if ('print' in resolved) return print(resolved.print);
  await resolved.command.run(resolved.parsed);
}

/** Runs one command line on the input and output `cliIo()` gives; resolves with its exit status. */
async function runToStatus(argv: string[]): Promise<number> {
  try {
    await run(argv);
    return 0;
  } catch (err) {
    // An error may quote what was typed or stored: escaped as every output is.
    const { stderr } = cliIo();
    if (err instanceof ConfigError) stderr.write(`souk: invalid setting: ${terminalSafe(err.message)}\n`);
    else stderr.write(`souk: ${terminalSafe((err as Error)?.message ?? String(err))}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}

/** Runs one command line with `io` as its input and output, inside another process (the tests); resolves with its exit status. */
export function runCommandLine(argv: string[], io: CliIo): Promise<number> {
  return withCliIo(io, () => runToStatus(argv));
}

/**
 * A reader that stops early (`souk config | head -1`) closes the pipe: what is left to print has no
 * reader, so the command ends quietly instead of dying on EPIPE. Any other failure to write is told.
 */
function survivePipeClosed(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
    if (stream !== process.stderr) process.stderr.write(`souk: cannot write the output: ${err.message}\n`);
    process.exitCode = 1;
  });
}

/** `souk` itself: the command line on the process's own environment and streams. */
export async function main(argv: string[]): Promise<void> {
  survivePipeClosed(process.stdout);
  survivePipeClosed(process.stderr);
  // Not through runCommandLine: its AsyncLocalStorage turns on Node.js 22's promise hooks for the
  // process's whole life, a cost on every request of `souk serve`.
  const status = await runToStatus(argv);
  if (status !== 0) process.exitCode = status;
}
