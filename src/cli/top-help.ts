// `qbench --help` without yargs: the command list laid out as yargs lays it out (usage line,
// description, "Commands:" in two columns, the two global options), so the commonest first
// command prints in the time of `--version`. Importing yargs alone takes about as long as
// starting Node. The layout rules are yargs' (lib/usage.js with cliui): the command column is
// as wide as the longest command (at most half the width) plus two spaces each side, the help
// text fills the rest of the width word by word, and an option's type sits flush right. Where
// those rules would need more than this renders (a command wider than half the width, a word
// wider than its column), `renderTopHelp` answers undefined and yargs prints the help itself;
// test/unit/cli/top-help.test.ts compares the two at several widths.
import type { CommandEntry } from './command.js';

export const USAGE = '$0 <command> [options]';
export const DESCRIPTION = 'Load-testing, conformance and fuzzing for queue-based inference endpoints.';
/** yargs' own options, as it describes them. */
const GLOBAL_OPTIONS = [
  ['--version', 'Show version number', '[boolean]'],
  ['--help', 'Show help', '[boolean]'],
] as const;

/** The help width: the terminal's, 100 when not a terminal, at most 110. */
export function helpWidth(columns: number | undefined): number {
  return Math.min(110, columns || 100);
}

/** `text` broken at spaces into lines of at most `width` characters; undefined if a word is wider. */
function wrapWords(text: string, width: number): string[] | undefined {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (word.length > width) return undefined;
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  lines.push(line);
  return lines;
}

/** Rows of a left column (padded two spaces each side) and wrapped text filling the rest of `width`. */
function twoColumns(rows: readonly (readonly [string, string])[], width: number): string[] | undefined {
  const left = Math.max(...rows.map(([l]) => l.length));
  if (left > Math.floor(width * 0.5)) return undefined;
  const textWidth = width - (left + 4);
  const out: string[] = [];
  for (const [l, text] of rows) {
    const wrapped = wrapWords(text, textWidth);
    if (wrapped === undefined) return undefined;
    wrapped.forEach((t, i) => out.push(`${i === 0 ? `  ${l.padEnd(left)}  ` : ' '.repeat(left + 4)}${t}`.trimEnd()));
  }
  return out;
}

/** The top-level help text yargs prints for these commands at `width`, or undefined (see above). */
export function renderTopHelp(scriptName: string, commands: readonly Pick<CommandEntry, 'command' | 'describe'>[], width: number): string | undefined {
  const description = wrapWords(DESCRIPTION, width);
  const commandRows = twoColumns(commands.map((c) => [`${scriptName} ${c.command}`, c.describe] as const), width);
  const optionRows = twoColumns(GLOBAL_OPTIONS.map(([flag, text]) => [flag, text] as const), width);
  if (description === undefined || commandRows === undefined || optionRows?.length !== GLOBAL_OPTIONS.length) return undefined;
  const options = optionRows.map((row, i) => {
    const type = GLOBAL_OPTIONS[i]?.[2] ?? '';
    return `${row}${' '.repeat(Math.max(2, width - row.length - type.length))}${type}`;
  });
  return [USAGE.replace('$0', scriptName), '', ...description, '', 'Commands:', ...commandRows, '', 'Options:', ...options].join('\n');
}
