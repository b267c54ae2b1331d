/**
 * The JSON body parser (D2). Fastify's own parser reports every failure, a `__proto__` key
 * included, as "invalid JSON"; this one tells the client which problem it has.
 */
import { badRequest, forbiddenKeyMessage, MESSAGES } from './errors.js';
import { JSON_MAX_DEPTH, nestsDeeperThan } from './json-depth.js';

/** The first key that could poison a prototype (`__proto__`, or `constructor` holding `prototype`), if any. */
function forbiddenKey(root: unknown): string | undefined {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Object.hasOwn(node, '__proto__')) return '__proto__';
    const ctor = (node as { constructor?: unknown }).constructor;
    if (Object.hasOwn(node, 'constructor') && ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) {
      return 'constructor.prototype';
    }
    for (const value of Object.values(node)) if (value !== null && typeof value === 'object') stack.push(value);
  }
  return undefined;
}

/** Parses a JSON body or throws the 400 answer naming what is wrong with it. */
export function parseJsonBody(text: string): unknown {
  // N2: an empty JSON body is an empty object, as WordPress reads it (the apps send one with a PUT).
  if (text === '') return {};
  // Before parsing: a body nested thousands of levels deep costs JSON.parse and forbiddenKey() far
  // more than its size suggests, and no request needs more than a few levels.
  if (nestsDeeperThan(text, JSON_MAX_DEPTH)) throw badRequest(MESSAGES.nestedTooDeeply);
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw badRequest(MESSAGES.invalidJson);
  }
  const key = forbiddenKey(value);
  if (key !== undefined) throw badRequest(forbiddenKeyMessage(key));
  return value;
}
