package render

import "strings"

// MediaType is the media type of an image item's data: URL, lowercased
// ("image" when the URL names none).
func MediaType(url string) string {
	if mt, _, _, ok := parseDataURL(url); ok && mt != "" {
		return mt
	}
	return "image"
}

// parseDataURL splits "data:<media type>[;params][;base64],<data>".
func parseDataURL(url string) (mediaType string, base64 bool, data string, ok bool) {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return "", false, "", false
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return "", false, "", false
	}
	fields := strings.Split(meta, ";")
	mediaType = strings.ToLower(strings.TrimSpace(fields[0]))
	for _, f := range fields[1:] {
		if strings.EqualFold(strings.TrimSpace(f), "base64") {
			base64 = true
		}
	}
	return mediaType, base64, data, true
}
