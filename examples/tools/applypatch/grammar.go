package applypatch

// Grammar is the patch language in Lark syntax. It is shown to the model
// (it is the tool's Spec.Grammar), and Parse accepts exactly the patches it
// describes. LF is "\n"; /(.*)/ and /(.+)/ match any characters but "\n".
const Grammar = `start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
`

// The literal parts of the grammar.
const (
	beginPatch   = "*** Begin Patch"
	endPatch     = "*** End Patch"
	addFile      = "*** Add File: "
	deleteFile   = "*** Delete File: "
	updateFile   = "*** Update File: "
	moveTo       = "*** Move to: "
	endOfFile    = "*** End of File"
	contextMark  = "@@"
	contextSpace = "@@ "
)

// Description is the apply_patch tool's description: how to write a
// patch, for the model.
const Description = `Edit files with a patch. The input is the patch text itself (not JSON), in this format:

*** Begin Patch
*** Add File: <path>          (every line of the new file follows, prefixed with +)
*** Delete File: <path>
*** Update File: <path>
*** Move to: <new path>       (optional: rename the file)
@@ <a line of the file, such as a function or class header, to jump to>
 <unchanged context line, prefixed with one space>
-<line to remove>
+<line to add>
*** End of File               (optional: the hunk ends at the end of the file)
*** End Patch

Paths are relative to the workspace root. There are no line numbers: hunks are found by their text. Give 3 lines of context above and below each change, copied exactly from the file (a blank line of context is a single space); if they are not unique in the file, add an "@@ <line>" header naming the enclosing function or class. One patch may change several files; it is applied all at once or not at all.`
