// Package applypatch is the apply_patch tool: a freeform tool whose input
// is a patch in a small language that needs no line numbers, and the
// worked example of a freeform tool in codemode-host.
//
// A patch names whole files and locates its edits by their text:
//
//	*** Begin Patch
//	*** Add File: docs/hello.txt
//	+Hello, world
//	*** Update File: src/app.go
//	*** Move to: src/main.go
//	@@ func main() {
//	-	println("hi")
//	+	println("hello")
//	*** Delete File: old.txt
//	*** End Patch
//
// Grammar is the language's grammar (Lark syntax). It is the tool's
// Spec.Grammar, so the model is shown it, and Parse follows it exactly: a
// patch Parse accepts is a sentence of Grammar and the other way round.
//
// Apply applies a parsed patch under a root directory. It is atomic: every
// file is read and every hunk located before anything is written, and a
// patch that fails changes no file. Errors say which file and hunk failed
// and why, as *ApplyError values that match ErrContextNotFound,
// ErrAmbiguousContext, ErrFileMissing, ErrFileExists, ErrNotRegularFile
// or ErrPathEscapes with errors.Is. Paths are relative to the root and may
// not leave it: absolute paths, ".." and symbolic links that point outside
// are refused (the files are reached through an os.Root).
//
// How hunks are located (the grammar says what a patch may contain; these
// rules say what it means):
//
//   - The hunks of one "*** Update File" are applied in order; each is
//     searched for after the end of the previous one.
//   - "@@ <text>" moves to the first line at or after that point whose
//     text is <text> (compared exactly, else ignoring leading and trailing
//     white space); it is an error if there is none. A bare "@@" only
//     starts a new hunk.
//   - A hunk's old lines (its " " and "-" lines, in order) must then appear
//     as consecutive lines of the file: compared exactly, or, when no exact
//     match exists, ignoring trailing white space. After an "@@ <text>"
//     line the first match is used; without one the match must be unique,
//     else the hunk is ambiguous and fails with ErrAmbiguousContext.
//   - With "*** End of File" the last hunk's old lines must be the last
//     lines of the file.
//   - A hunk with no old lines (only "+" lines) inserts its lines right
//     after its "@@ <text>" line, or at the end of the file when it has
//     none.
//   - A patched or added file ends with a newline. In a file whose every
//     line ends with "\r\n", added lines get "\r\n" too.
//
// Tool wraps all of this as a registry.Tool named apply_patch, callable by
// the model as a freeform call and from Code Mode scripts as
// await tools.apply_patch("*** Begin Patch\n...").
package applypatch
