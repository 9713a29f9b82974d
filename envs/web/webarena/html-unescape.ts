/**
 * Python's html.unescape for what program_html reads from a page: numeric references and the
 * named entities pages commonly use. A name outside this table is left as written.
 */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '\u00a9', reg: '\u00ae', trade: '\u2122',
  hellip: '\u2026', mdash: '\u2014', ndash: '\u2013', lsquo: '\u2018', rsquo: '\u2019', ldquo: '\u201c', rdquo: '\u201d',
  laquo: '\u00ab', raquo: '\u00bb', middot: '\u00b7', bull: '\u2022', deg: '\u00b0', times: '\u00d7', euro: '\u20ac',
  pound: '\u00a3', yen: '\u00a5', cent: '\u00a2', sect: '\u00a7', para: '\u00b6', eacute: '\u00e9', egrave: '\u00e8',
  aacute: '\u00e1', agrave: '\u00e0', ouml: '\u00f6', uuml: '\u00fc', auml: '\u00e4', ccedil: '\u00e7', ntilde: '\u00f1',
};

export function unescapeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);?/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    const named = NAMED[body];
    return named !== undefined && whole.endsWith(';') ? named : whole;
  });
}
