// Output in the Cosmos CLI way: `-o json` as JSON, `-o text` as YAML-like `key: value` lines.
import { printLine } from '../common.ts';

const PLAIN = /^[A-Za-z_/][A-Za-z0-9_./@+-]*$/;
const RESERVED = /^(true|false|null|yes|no|on|off|~|y|n)$/i;

function scalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const s = String(v);
  // plain when unambiguous; numbers-as-strings, empty strings and anything special are quoted
  return PLAIN.test(s) && !RESERVED.test(s) ? s : JSON.stringify(s);
}

/** A mapping key: plain when YAML allows it, else single-quoted as go-yaml writes '@type'. */
function key(k: string): string {
  return /^[A-Za-z_][A-Za-z0-9_./-]*$/.test(k) && !RESERVED.test(k) ? k : `'${k.replaceAll("'", "''")}'`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function lines(v: unknown, indent: string, out: string[]): void {
  if (isObject(v)) {
    for (const [name, x] of Object.entries(v)) {
      const k = key(name);
      if (isObject(x) && Object.keys(x).length > 0) {
        out.push(`${indent}${k}:`);
        lines(x, `${indent}  `, out);
      } else if (Array.isArray(x) && x.length > 0) {
        out.push(`${indent}${k}:`);
        lines(x, indent, out);
      } else out.push(`${indent}${k}: ${isObject(x) ? '{}' : Array.isArray(x) ? '[]' : scalar(x)}`);
    }
    return;
  }
  if (Array.isArray(v)) {
    for (const x of v) {
      if (isObject(x) && Object.keys(x).length > 0) {
        const sub: string[] = [];
        lines(x, '', sub);
        sub.forEach((l, i) => out.push(`${indent}${i === 0 ? '- ' : '  '}${l}`));
      } else out.push(`${indent}- ${isObject(x) ? '{}' : Array.isArray(x) ? '[]' : scalar(x)}`);
    }
    return;
  }
  out.push(`${indent}${scalar(v)}`);
}

/** The YAML-like text form of a JSON value. */
export function toText(v: unknown): string {
  const out: string[] = [];
  lines(v, '', out);
  return out.join('\n');
}

export function printOutput(v: unknown, format: string, indentJson = false): void {
  printLine(format === 'json' ? JSON.stringify(v, null, indentJson ? 2 : undefined) : toText(v));
}
