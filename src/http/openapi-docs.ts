import { resources } from '../resources/index.ts';
import { apiDocs } from './api-docs.ts';

// The HTTP layer's one reference to the resources, until registerOpenApi receives them from buildApp.
const docs = apiDocs(resources);
export const TAGS = docs.tags;
export const { components, sampleFor, namedRecords } = docs;
