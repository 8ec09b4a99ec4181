// Plain-text tables for the console renderer: columns padded to their widest cell, numbers right-aligned.

export interface Column {
  header: string;
  align?: 'left' | 'right';
}

/** Visible width (ANSI colour codes do not count). */
// eslint-disable-next-line no-control-regex
const visible = (s: string): number => s.replace(/\u001b\[[0-9;]*m/g, '').length;

export function textTable(columns: readonly Column[], rows: readonly (readonly string[])[], indent = '  '): string {
  const widths = columns.map((c, i) => Math.max(visible(c.header), ...rows.map((r) => visible(r[i] ?? ''))));
  const cell = (s: string, i: number) => {
    const pad = ' '.repeat(Math.max(0, (widths[i] ?? 0) - visible(s)));
    return columns[i]?.align === 'right' ? pad + s : s + pad;
  };
  const line = (r: readonly string[]) => indent + columns.map((_, i) => cell(r[i] ?? '', i)).join('  ').trimEnd();
  return [line(columns.map((c) => c.header)), indent + widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
