'use strict';
const assert = require('assert');
const { parseDuration } = require('../duration');

describe('parseDuration', () => {
  it('single unit', () => assert.strictEqual(parseDuration('45s'), 45));
  it('combined units', () => {
    assert.strictEqual(parseDuration('1h30m'), 5400);
    assert.strictEqual(parseDuration('2h5s'), 7205);
  });
});
