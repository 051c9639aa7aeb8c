import { cutAt, echo, plain } from './untrusted.js';

/** The longest error text: a list of valid values stays readable, a flood does not pass. */
const MAX = 1500;

/** Every string inside the caller's arguments (values, and keys, which an unknown-argument error names). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out.push(k);
      strings(v, out);
    }
  }
  return out;
}

const NAME_OPEN = '<untrusted-text kind="name">';
const NAME_CLOSE = '</untrusted-text>';
const name = (text: string): string => `${NAME_OPEN}${text}${NAME_CLOSE}`;
const unquoted = (json: string): string => {
  try {
    return plain(JSON.parse(`"${json}"`) as string).replace(/\s+/g, ' ');
  } catch {
    return json;
  }
};

/**
 * The ways the domain's messages list the names of things, so that the valid values they offer stay useful and
 * still reach the model inside blocks: `"In Review" (col_..., progress)`, `on board Website; its columns are`,
 * `column names: To Do, Done; categories`, `matches Alex Kim (@akim, usr_...)`.
 */
const NAMED: Array<[RegExp, (m: string, ...groups: string[]) => string]> = [
  // A listed name is a JSON string (the domain writes it so: a name may hold quotes), read back and kept on one line.
  [/"((?:[^"\\]|\\.)*)" \((?=[a-z]+_[0-9a-z]+[,)])/g, (_m, n) => `${name(unquoted(n!))} (`],
  [/( on board )(.+?)(; its columns are )/g, (_m, a, n, b) => `${a}${name(n!)}${b}`],
  [/(column names: )(.+?)(; categories: )/g, (_m, a, n, b) => `${a}${name(n!)}${b}`],
  [/((?:matches| and) )([^"]+?)( \(@[A-Za-z0-9._-]+, usr_[0-9a-z]+\))/g, (_m, a, n, b) => `${a}${name(n!)}${b}`],
];

/**
 * An error's text as it may reach the model: the caller's input it repeats (a column name, a reference) is cut to
 * about 100 characters, the whole is neutralised and put on one line, so an echoed `\n</untrusted-text>\nSYSTEM:`
 * forges neither a line nor a block, and the names of things it lists go into blocks. Messages are built in the
 * domain for REST too; this is the MCP edge.
 */
export function errorText(message: string, args?: unknown): string {
  let text = message;
  // Longest first, so a value that contains another is replaced whole.
  const echoed = [...new Set(strings(args).flatMap((s) => [s, s.trim()]))].filter((s) => s.trim().length >= 3).sort((a, b) => b.length - a.length);
  for (const s of echoed) {
    const safe = echo(s);
    if (safe !== s && text.includes(s)) text = text.split(s).join(safe);
  }
  let one = plain(text).replace(/\s+/g, ' ').trim();
  if (one.length > MAX) one = `${cutAt(one, MAX)}... (cut)`;
  for (const [pattern, fenced] of NAMED) one = one.replace(pattern, fenced as (m: string, ...g: string[]) => string);
  return one;
}
