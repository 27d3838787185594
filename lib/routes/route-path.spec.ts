import { McpError } from '../protocol/messages/mcp-error';
import { RoutePathTemplate } from './route-path';

const express = (path: string) => new RoutePathTemplate(path, 'path-to-regexp');
const fastify = (path: string) => new RoutePathTemplate(path, 'find-my-way');

describe('route path templates', () => {
  it('reads the parameters of path-to-regexp 8 (Express 5): optional groups, wildcards, escapes', () => {
    expect(express('/users/:userId/notes{/:noteId}').params).toEqual([
      { name: 'userId', optional: false, wildcard: false },
      { name: 'noteId', optional: true, wildcard: false },
    ]);
    expect(express('/files/*splat').params).toEqual([{ name: 'splat', optional: false, wildcard: true }]);
    expect(express('/files{/*rest}').params).toEqual([{ name: 'rest', optional: true, wildcard: true }]);
    expect(express('/a\\:b/:"quoted name"').params).toEqual([
      { name: 'quoted name', optional: false, wildcard: false },
    ]);
    expect(express('/geo/:lat-:lng').params.map((param) => param.name)).toEqual(['lat', 'lng']);
  });

  it("reads the parameters of find-my-way (Fastify): regex, a last optional, '*', '::'", () => {
    expect(fastify('/users/:userId(^\\d+)/notes/:noteId?').params).toEqual([
      { name: 'userId', optional: false, wildcard: false },
      { name: 'noteId', optional: true, wildcard: false },
    ]);
    expect(fastify('/files/*').params).toEqual([{ name: 'wildcard', optional: true, wildcard: true }]);
    expect(fastify('/a::b/:from-:to').params.map((param) => param.name)).toEqual(['from', 'to']);
  });

  it('fills parameters URL-encoded and drops an optional group without its value', () => {
    expect(express('/notes/:id/tags/:tag').fill({ id: 7, tag: 'a b/../c?d#e' })).toBe(
      '/notes/7/tags/a%20b%2F..%2Fc%3Fd%23e',
    );
    expect(express('/notes{/:id}').fill({})).toBe('/notes');
    expect(express('/notes{/:id}').fill({ id: 'x' })).toBe('/notes/x');
    expect(fastify('/notes/:id?').fill({})).toBe('/notes');
    expect(fastify('/notes/:id(^\\d+)').fill({ id: 3 })).toBe('/notes/3');
    expect(fastify('/a::b/:from-:to').fill({ from: 1, to: 2 })).toBe('/a:b/1-2');
    expect(express('/a\\{b\\}/:x').fill({ x: 'y' })).toBe('/a{b}/y');
  });

  it("fills a wildcard segment by segment, keeping its '/'", () => {
    expect(express('/files/*splat').fill({ splat: 'docs/a b/c%d.md' })).toBe('/files/docs/a%20b/c%25d.md');
    expect(fastify('/files/*').fill({ wildcard: 'docs/x?y' })).toBe('/files/docs/x%3Fy');
    expect(express('/files{/*rest}').fill({})).toBe('/files');
  });

  it.each([
    ['..', '/notes/:id'],
    ['.', '/notes/:id'],
    ['', '/notes/:id'],
    ['a/../../admin', '/files/*splat'],
    ['../admin', '/files/*splat'],
    ['a//b', '/files/*splat'],
    ['/etc', '/files/*splat'],
  ])('refuses the value %j for %s (-32602): it would reach another path', (value, path) => {
    const template = express(path);
    const name = template.params[0].name;
    expect(() => template.fill({ [name]: value })).toThrow(McpError);
    expect(() => template.fill({ [name]: value })).toThrow(expect.objectContaining({ code: -32602 }));
  });

  it('refuses a call without a required parameter (-32602)', () => {
    expect(() => express('/notes/:id').fill({})).toThrow(expect.objectContaining({ code: -32602 }));
  });
});
