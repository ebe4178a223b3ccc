// The one logger type of the modules below the edge: the part of a pino logger they call. Fastify's
// `app.log` and pino's own logger both fit it, and a test passes a plain object with three methods;
// each module takes it as a parameter instead of importing a logging library (docs/operations.md
// "Logs").

export interface Log {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
