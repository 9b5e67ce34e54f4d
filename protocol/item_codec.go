package protocol

import "github.com/vmihailenco/msgpack/v5"

// EncodeMsgpack writes the item exactly as its struct tags describe (the
// same bytes as msgpack's reflective encoder, pinned by the golden files),
// without the per-item allocations of omitempty handling: cell results
// carry many items.
func (it Item) EncodeMsgpack(enc *msgpack.Encoder) error {
	fields := [...]struct{ key, val string }{
		{"type", it.Type}, {"text", it.Text}, {"level", it.Level},
		{"image_url", it.ImageURL}, {"detail", it.Detail},
	}
	n := 1 // type is always written
	for _, f := range fields[1:] {
		if f.val != "" {
			n++
		}
	}
	if err := enc.EncodeMapLen(n); err != nil {
		return err
	}
	for i, f := range fields {
		if i > 0 && f.val == "" {
			continue
		}
		if err := enc.EncodeString(f.key); err != nil {
			return err
		}
		if err := enc.EncodeString(f.val); err != nil {
			return err
		}
	}
	return nil
}
