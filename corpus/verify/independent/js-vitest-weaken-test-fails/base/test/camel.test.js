import { test, expect } from 'vitest';
import { camelCase } from '../camel.js';

test('underscores', () => expect(camelCase('a_b_c')).toBe('aBC'));
test('dashes too', () => expect(camelCase('hello_big-world')).toBe('helloBigWorld'));
