/**
 * The route schemas' compilers, shared by every app this process builds: Fastify's own (Ajv for
 * requests, fast-json-stringify for replies), each schema compiled once per process instead of once
 * per app. An app otherwise spends a quarter of a second of CPU compiling the same schemas again:
 * `souk serve` builds one app, but the tests build hundreds.
 *
 * Invariant: a compiled function depends only on its schema, the shared schemas (app.addSchema)
 * and the compiler's options, and all three are in its key, so a shared one is the one the app
 * would have compiled itself.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
/** A compiler factory as Fastify calls it (the two packages' own types describe other signatures). */
type Factory = (externalSchemas: unknown, options: unknown) => (route: FastifyRouteSchemaDef<unknown>) => unknown;

const compiled = new Map<string, unknown>();

/**
 * `build`, with each compiled function kept under the schema's text: Fastify hands the compilers
 * copies of some schemas, so an object's identity would miss. The route's request part or reply
 * status is in the key too. At most one entry per route, part and status.
 */
function shared(name: string, build: Factory): Factory {
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    const scope = JSON.stringify([name, externalSchemas, options]);
    return (route) => {
      const key = `${scope}${route.httpPart ?? ''}${route.httpStatus ?? ''}${JSON.stringify(route.schema)}`;
      let fn = compiled.get(key);
      if (fn === undefined) {
        fn = compile(route);
        compiled.set(key, fn);
      }
      return fn;
    };
  };
}

/** For Fastify's `schemaController` option. */
export const sharedSchemaCompilers = {
  compilersFactory: {
    buildValidator: shared('validator', AjvCompiler() as unknown as Factory) as unknown as CompilersFactory['buildValidator'],
    buildSerializer: shared('serializer', SerializerSelector() as unknown as Factory) as unknown as CompilersFactory['buildSerializer'],
  },
} satisfies FastifyServerOptions['schemaController'];

/** How many validators and serializers this process compiled (a test holds that a second app compiles none). */
export const compiledSchemas = () => compiled.size;
