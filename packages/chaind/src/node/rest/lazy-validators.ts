// Fastify compiles every route's validators with ajv before it listens, a quarter of a second of this
// thread at each start (inside an upgrade's downtime). The same validators, Fastify's own default
// compiler with its options, compiled at each route's first request instead.
import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';

type Validator = ReturnType<ReturnType<BuildCompilerFromPool>>;

/** Fastify's `schemaController.compilersFactory.buildValidator`: the default validators, each compiled when first used. */
export function lazyValidators(): BuildCompilerFromPool {
  const pool: BuildCompilerFromPool = AjvCompiler();
  const factory: BuildCompilerFromPool = (externalSchemas, options) => {
    const compile = pool(externalSchemas, options);
    return (route) => {
      let fn: Validator | undefined;
      const validate = ((data: unknown) => (fn ??= compile(route))(data)) as Validator;
      // Fastify reads a failed validation's reasons from the function
      Object.defineProperty(validate, 'errors', { get: () => fn?.errors });
      return validate;
    };
  };
  return factory;
}
