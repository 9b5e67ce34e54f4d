// The smallest cell: print something and return a value.
text("Hello from codemode-host!");
return { ok: true };
