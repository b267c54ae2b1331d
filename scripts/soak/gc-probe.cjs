// Loaded into the server that `npm run soak` starts itself (node --expose-gc --require this file).
// On SIGUSR2 it runs a full garbage collection and prints the process's memory on one line, so the
// soak compares the memory the server actually retains after the warm-up and at the end, rather
// than wherever V8's collection cycle happens to be at those two moments (docs/hardening.md).
'use strict';
process.on('SIGUSR2', () => {
  if (typeof global.gc === 'function') {
    global.gc();
    global.gc();
  }
  setTimeout(() => {
    const m = process.memoryUsage();
    process.stdout.write(
      `SOAK_MEMORY ${JSON.stringify({ rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external })}\n`,
    );
  }, 250);
});
