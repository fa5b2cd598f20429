'use strict';
/**
 * A card table reader: the text grammar of spec/card-table.md, nothing else.
 *
 *   readCardTable(text) -> { card_table: [entry, ...] }
 *
 * Invalid text throws a CardTableError (line and column in the message); the
 * adapter turns that into a rejection. Any other exception is a bug in this
 * file, and the adapter reports it as a crash, never as a rejection.
 *
 * Grammar (one entry per non-empty line, fields separated by exactly one space):
 *
 *   "#" instance-id SP name [SP printing] *(SP source-id) SP owner [SP kind]
 */

class CardTableError extends Error {
  constructor(message, line, column) {
    super(column === undefined ? `line ${line}: ${message}` : `line ${line}, column ${column}: ${message}`);
    this.name = 'CardTableError';
  }
}

// ABNF ALPHA and DIGIT are ASCII only, so the classes are spelled out (never \w or \d).
// All are sticky (/y): they match exactly at `lastIndex`, which the cursor sets.
const INSTANCE_ID = /[A-Za-z0-9._-]+/y;
const SET_CODE = /[A-Za-z0-9]{3,6}/y;
const SOURCE_ID = /[a-z][a-z0-9-]*:[A-Za-z0-9._/-]+/y;
const PLAYER = /[A-Za-z0-9._-]+/y;
// Any scalar value but controls, space and "]". With the /u flag a lone surrogate is one
// code point, and it is outside these ranges, so it is refused like a control.
const COLLECTOR_NUMBER = /[\x21-\x5C\x5E-\x7E\u{A0}-\u{D7FF}\u{E000}-\u{10FFFF}]+/uy;

/** `qchar`: a code point allowed unescaped between double quotes. */
function isQuotedChar(cp) {
  if (cp >= 0x20 && cp <= 0x7e) return cp !== 0x22 && cp !== 0x5c; // not `"` nor `\`
  return cp >= 0xa0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff); // no C1, no surrogate
}

/** A position in one line; every `fail` names the line and the column (in code points). */
class Cursor {
  constructor(text, lineNumber) {
    this.text = text;
    this.lineNumber = lineNumber;
    this.pos = 0; // in UTF-16 code units, as JavaScript strings index
  }

  atEnd() {
    return this.pos >= this.text.length;
  }

  lookingAt(literal) {
    return this.text.startsWith(literal, this.pos);
  }

  expect(literal, what) {
    if (!this.lookingAt(literal)) this.fail(`expected ${what}`);
    this.pos += literal.length;
  }

  match(pattern, what) {
    pattern.lastIndex = this.pos;
    const found = pattern.exec(this.text);
    if (found === null) this.fail(`expected ${what}`);
    this.pos = pattern.lastIndex;
    return found[0];
  }

  fail(message) {
    const column = [...this.text.slice(0, this.pos)].length + 1;
    throw new CardTableError(message, this.lineNumber, column);
  }
}

/** `quoted = DQUOTE 1*( qchar / escape ) DQUOTE`, returned without quotes or escapes. */
function readQuoted(cur, what) {
  cur.expect('"', `${what} in double quotes`);
  let value = '';
  for (;;) {
    if (cur.atEnd()) cur.fail(`${what} has no closing double quote`);
    const cp = cur.text.codePointAt(cur.pos);
    if (cp === 0x22) {
      cur.pos += 1;
      break;
    }
    if (cp === 0x5c) {
      const escaped = cur.text[cur.pos + 1];
      if (escaped !== '"' && escaped !== '\\') {
        cur.fail(`unknown escape in ${what}: only \\" and \\\\ are allowed`);
      }
      value += escaped;
      cur.pos += 2;
      continue;
    }
    if (!isQuotedChar(cp)) {
      cur.fail(`U+${cp.toString(16).toUpperCase().padStart(4, '0')} is not allowed in ${what}`);
    }
    const char = String.fromCodePoint(cp);
    value += char;
    cur.pos += char.length;
  }
  if (value === '') cur.fail(`${what} is empty`);
  return value;
}

/** `name = quoted / "?"`: null for "?", a name not known. */
function readName(cur) {
  if (cur.lookingAt('?')) {
    cur.pos += 1;
    return null;
  }
  if (!cur.lookingAt('"')) cur.fail('expected the name in double quotes, or "?"');
  return readQuoted(cur, 'the name');
}

/** `printing = "[" set-code SP collector-number "]"`; both kept verbatim. */
function readPrinting(cur) {
  cur.expect('[', '"["');
  const set = cur.match(SET_CODE, 'a set code of 3 to 6 ASCII letters or digits');
  cur.expect(' ', 'one space after the set code');
  const number = cur.match(COLLECTOR_NUMBER, 'a collector number');
  cur.expect(']', '"]" after the collector number');
  return { set, number }; // "010" stays "010": a collector number is a string, not a number
}

/** One `entry` line, as a reader result entry. */
function readEntry(cur) {
  cur.expect('#', '"#" at the start of the line');
  const id = cur.match(INSTANCE_ID, 'an instance ID (ASCII letters, digits, "-", "_", ".")');
  cur.expect(' ', 'one space after the instance ID');
  const name = readName(cur);
  cur.expect(' ', 'one space after the name');

  let printing = null;
  if (cur.lookingAt('[')) {
    printing = readPrinting(cur);
    cur.expect(' ', 'one space after the printing');
  }

  // Source IDs run until the owner. `owner:1` would be a source ID; `owner=` never is.
  const sourceIds = [];
  while (!cur.lookingAt('owner=')) {
    sourceIds.push(cur.match(SOURCE_ID, 'a source ID (prefix:value) or owner='));
    cur.expect(' ', 'one space after the source ID');
  }
  cur.expect('owner=', 'owner=');
  const owner = cur.lookingAt('"') ? readQuoted(cur, 'the owner') : cur.match(PLAYER, 'a player after owner=');

  let kind = 'card';
  if (!cur.atEnd()) {
    cur.expect(' ', 'one space before the kind, or the end of the line');
    if (cur.atEnd()) cur.fail('no space is allowed at the end of a line');
    if (cur.lookingAt('token')) kind = 'token';
    else if (cur.lookingAt('copy')) kind = 'copy';
    else cur.fail('expected "token" or "copy"');
    cur.pos += kind.length;
    if (!cur.atEnd()) cur.fail('expected the end of the line');
  }
  return { id, name, printing, source_ids: sourceIds, owner, kind };
}

/** The whole text: `card-table = *( line eol ) [ line ]`, `eol = LF / CR LF`. */
function readCardTable(text) {
  // A CR belongs to the line end only right before LF; any other CR stays in its line
  // and is refused there as a control character.
  const lines = text.split(/\r?\n/);
  const seen = new Set();
  const cardTable = [];
  lines.forEach((line, index) => {
    if (line === '') return; // empty lines are ignored; a line of spaces is not empty
    const entry = readEntry(new Cursor(line, index + 1));
    if (seen.has(entry.id)) {
      throw new CardTableError(`instance ID "${entry.id}" is already used by an earlier line`, index + 1);
    }
    seen.add(entry.id);
    cardTable.push(entry);
  });
  return { card_table: cardTable };
}

module.exports = { readCardTable, CardTableError };
