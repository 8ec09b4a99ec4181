// Minimal XML writing for the JUnit renderer: escaping, and removal of the characters XML 1.0
// cannot carry (control characters from response bodies).

// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function xmlText(s: string): string {
  return s.replace(INVALID_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

/** A one-line token (JUnit names and classnames are xs:token). */
export function xmlToken(s: string): string {
  return xmlAttr(s.replace(/\s+/g, ' ').trim() || '-');
}

export function attrs(a: Record<string, string | number | undefined>): string {
  return Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${typeof v === 'number' ? String(v) : xmlAttr(v ?? '')}"`)
    .join('');
}
