/**
 * The simulated instance's data layer: every record type and table of the sandbox, split by domain in model/. Route
 * modules, and the modules beside this one that relate records to each other (review.ts, repository-access.ts …),
 * read and write the data through here, never through another route module. The tables of the generated CRUD
 * modules are named from their declarations (model/declared.ts); those another module reads are here too.
 */
export * from './model/accounts.js';
export * from './model/namespaces.js';
export * from './model/repository.js';
export * from './model/review.js';
export * from './model/ci.js';
export * from './model/instance.js';
export { collectionTableName, singletonTableName, type ParentIds, type StoredFields, type StoredRecord } from './model/declared.js';
