// Types for comlink's ES module build, which comlink ships without a `.d.mts`. Workers import it by
// path: the package's main file is a UMD bundle, and importing CommonJS from ESM makes Node lex it
// for export names at every worker's start.
declare module 'comlink/dist/esm/comlink.mjs' {
  export * from 'comlink';
}
