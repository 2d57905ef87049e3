import { describe, expect, it } from 'vitest';
import { instanceIdentity } from '../../src/config/resolve.js';

describe('instance identity (keys of rotation locks and recovery files)', () => {
  it('names one instance once however its URL is written', () => {
    const spellings = ['http://127.0.0.1:8080', 'http://localhost:8080/', 'http://localhost:8080/api/v4', 'http://127.0.0.1:8080/api/v4/', 'https://LOCALHOST:8080', 'http://[::1]:8080'];
    expect(new Set(spellings.map(instanceIdentity))).toEqual(new Set(['loopback:8080']));
    expect(instanceIdentity('https://git.example.com')).toBe(instanceIdentity('http://git.example.com:80/api/v4'));
    expect(instanceIdentity('https://Git.Example.com:443/gitlab/')).toBe('git.example.com/gitlab');
  });

  it('keeps instances apart that differ in host, port or path', () => {
    const distinct = ['https://git.example.com', 'https://git.example.com:8443', 'https://git.example.com/gitlab', 'https://git2.example.com', 'http://127.0.0.1:8081'];
    expect(new Set(distinct.map(instanceIdentity)).size).toBe(distinct.length);
  });
});
