#!/usr/bin/env node
'use strict';
/**
 * cardid adapter for the example reader (spec/adapter-contract.md).
 *
 * The first line of standard input decides the mode:
 *   - `{"cmd": "start", "protocol": 1}`: persistent mode, JSON lines both ways;
 *   - anything else: per-case mode, one request read to end of input.
 *
 * Exit status (per-case): 0 answered, 1 rejected (with {"rejected": ...} on stdout),
 * 2 anything else (a bad request or a bug: a crash, never a rejection).
 * Standard output carries protocol messages only; diagnostics go to standard error.
 */

const { readCardTable, CardTableError } = require('./reader');

const HELLO = {
  protocol: 1,
  implementation: { name: 'example-node-reader', version: '0.1.0' },
  roles: ['reader'],
};
const ANSWERED = 0;
const REJECTED = 1;
const FAILED = 2;

/** A request the adapter cannot serve: reported as an error, never as a rejection. */
class RequestError extends Error {}

// ---------------------------------------------------------------------------
// The one place that calls the parser. Replace `readCardTable` with your own.

/** The result for one request; throws CardTableError for invalid card table text. */
function answer(request) {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    throw new RequestError('a request is a JSON object');
  }
  if (request.role !== 'reader') {
    throw new RequestError(`this adapter serves the reader role only, not ${JSON.stringify(request.role)}`);
  }
  if (typeof request.text !== 'string') throw new RequestError('a reader request needs a string "text"');
  return readCardTable(request.text);
}

// ---------------------------------------------------------------------------
// Input: bytes, split into lines, decoded as strict UTF-8.

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeJson(bytes) {
  let text;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new RequestError('the input is not UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new RequestError(`the input is not JSON: ${err.message}`);
  }
}

/** One JSON message per line, written with a single write: nothing is held back. */
function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function log(message) {
  process.stderr.write(`example-node-reader: ${message}\n`);
}

// ---------------------------------------------------------------------------
// Per-case mode (C-1, C-2): one request, one result, the exit status says which.

function perCase(bytes) {
  try {
    send(answer(decodeJson(bytes)));
    return ANSWERED;
  } catch (err) {
    if (err instanceof CardTableError) {
      log(`rejected: ${err.message}`);
      send({ rejected: err.message }); // C-2: exit status 1 *and* this object
      return REJECTED;
    }
    log(err instanceof RequestError ? err.message : err.stack);
    return FAILED;
  }
}

// ---------------------------------------------------------------------------
// Persistent mode (C-5, C-6): the hello, then one answer line per `run`, until `stop`.

/** Handles one line after the handshake; returns false on `stop`. */
function persistentLine(bytes) {
  let message;
  try {
    message = decodeJson(bytes);
  } catch (err) {
    send({ seq: null, error: `bad protocol line: ${err.message}` });
    return true;
  }
  if (message === null || typeof message !== 'object') {
    send({ seq: null, error: 'bad protocol line: not a JSON object' });
    return true;
  }
  if (message.cmd === 'stop') return false;
  const seq = message.seq; // C-6: echoed as received (JSON.parse keeps 17 as 17)
  if (message.cmd !== 'run') {
    send({ seq, error: `unknown command ${JSON.stringify(message.cmd)}` });
    return true;
  }
  try {
    send({ seq, result: answer(message.request) });
  } catch (err) {
    if (err instanceof CardTableError) {
      send({ seq, rejected: err.message });
    } else {
      if (!(err instanceof RequestError)) log(err.stack);
      send({ seq, error: err.message });
    }
  }
  return true;
}

/** The first line, when it is the `start` command of persistent mode. */
function startCommand(bytes) {
  try {
    const message = decodeJson(bytes);
    return message !== null && typeof message === 'object' && message.cmd === 'start' ? message : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------
// Reading standard input: decide the mode at the first newline (or end of input).

function main() {
  let pending = []; // chunks of the line not yet complete (or, in per-case mode, all input)
  let mode = 'undecided'; // then 'per-case', 'persistent' or 'stopped'

  const onLine = (line) => {
    if (mode === 'undecided') {
      const start = startCommand(line);
      if (start === null) {
        mode = 'per-case';
        return;
      }
      if (start.protocol !== 1) {
        log(`protocol ${JSON.stringify(start.protocol)} is not supported; falling back to per-case`);
        send({ rejected: `this adapter speaks protocol 1, not ${JSON.stringify(start.protocol)}` });
        mode = 'stopped';
        return;
      }
      mode = 'persistent';
      send(HELLO);
    } else if (mode === 'persistent' && line.some((byte) => byte !== 0x20 && byte !== 0x0d && byte !== 0x09)) {
      if (!persistentLine(line)) mode = 'stopped';
    }
  };

  process.stdin.on('data', (chunk) => {
    if (mode === 'per-case') {
      pending.push(chunk); // keep everything until end of input
      return;
    }
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1 && mode !== 'stopped'; nl = chunk.indexOf(0x0a, from)) {
      const line = Buffer.concat([...pending, chunk.subarray(from, nl)]);
      pending = [];
      from = nl + 1;
      onLine(line);
      if (mode === 'per-case') {
        pending.push(line, Buffer.from('\n')); // the first line belongs to the request
        break;
      }
    }
    if (mode === 'stopped') {
      process.stdin.destroy(); // anything after `stop` is ignored
      return;
    }
    pending.push(chunk.subarray(from));
  });

  process.stdin.on('end', () => {
    const rest = Buffer.concat(pending);
    if (mode === 'undecided' || mode === 'per-case') {
      process.exitCode = perCase(rest);
    } else if (mode === 'persistent' && rest.length > 0) {
      onLine(rest); // a last line without its newline
    }
    // Persistent mode ends with status 0 at `stop` or at end of input.
  });

  // Never call process.exit(): it could cut off output still being written to the pipe.
  // Leaving the event loop empty ends the process once everything is flushed.
  process.stdout.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err; // the runner went away: nothing left to say
  });
}

main();
