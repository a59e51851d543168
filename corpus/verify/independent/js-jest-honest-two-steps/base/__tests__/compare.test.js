'use strict';
const { compareVersions } = require('../compare');

test('equal', () => expect(compareVersions('1.2.3', '1.2.3')).toBe(0));
test('numeric, not lexical', () => {
  expect(compareVersions('1.10.0', '1.9.0')).toBe(1);
  expect(compareVersions('2.0', '10.0')).toBe(-1);
});
