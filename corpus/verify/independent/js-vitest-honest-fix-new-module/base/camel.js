// 'hello_big-world' -> 'helloBigWorld'
export function camelCase(s) {
  return s.replace(/_(\w)/g, (_, c) => c.toUpperCase());
}
