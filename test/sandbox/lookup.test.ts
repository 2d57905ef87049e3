import { describe, expect, it } from 'vitest';
import { findGroup, findProject } from '../../src/sandbox/auth.js';
import { Db } from '../../src/sandbox/db.js';
import { projects } from '../../src/sandbox/model.js';
import { addGroup, addProject } from '../../src/sandbox/seed.js';

describe('finding a project or group by ID or path (indexed, for fleets of 10,000)', () => {
  it('follows renames, deletions and new records, and never answers with another record', () => {
    const db = new Db();
    const now = new Date();
    const group = addGroup(db, { name: 'acme', path: 'acme' }, now);
    const made = Array.from({ length: 50 }, (_, i) => addProject(db, { name: `p${i}`, path: `p${i}`, namespace_id: group.id }, now));
    expect(findProject(db, 'ACME/p7')).toBe(made[7]);
    expect(findProject(db, String(made[30].id))).toBe(made[30]);
    expect(findGroup(db, 'Acme')).toBe(group);

    made[7].path_with_namespace = 'acme/renamed';
    expect(() => findProject(db, 'acme/p7')).toThrow(/404 Project Not Found/);
    expect(findProject(db, 'acme/renamed')).toBe(made[7]);

    const list = projects(db);
    list.splice(list.indexOf(made[3]), 1);
    expect(() => findProject(db, 'acme/p3')).toThrow(/404 Project Not Found/);
    expect(() => findProject(db, String(made[3].id))).toThrow(/404 Project Not Found/);
    // Every later project moved one place up: each is still found as itself.
    for (const project of made.slice(4)) expect(findProject(db, project.path_with_namespace)).toBe(project);

    const again = addProject(db, { name: 'p3', path: 'p3', namespace_id: group.id }, now);
    expect(findProject(db, 'acme/p3')).toBe(again);
    expect(findProject(db, `0${again.id}`)).toBe(again);
  });
});
