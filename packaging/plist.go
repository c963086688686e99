package packaging

import (
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// DecodePlist parses an XML property list. Values come back as
// map[string]any (dict), []any (array), string, bool, int64 (integer),
// float64 (real), time.Time (date) and []byte (data). Anything else —
// unknown elements, text between elements, duplicate keys, a key without a
// value — is an error naming what is wrong.
func DecodePlist(r io.Reader) (any, error) {
	d := xml.NewDecoder(r)
	root, err := nextStart(d, "")
	if err != nil {
		return nil, fmt.Errorf("parsing plist: %w", err)
	}
	if root.Name.Local != "plist" {
		return nil, fmt.Errorf("parsing plist: root element is <%s>, want <plist>", root.Name.Local)
	}
	start, err := nextStart(d, "plist")
	if err != nil {
		return nil, fmt.Errorf("parsing plist: %w", err)
	}
	if start == nil {
		return nil, errors.New("parsing plist: <plist> holds no value")
	}
	v, err := decodeValue(d, *start)
	if err != nil {
		return nil, fmt.Errorf("parsing plist: %w", err)
	}
	if extra, err := nextStart(d, "plist"); err != nil || extra != nil {
		if err == nil {
			err = fmt.Errorf("<plist> holds more than one value (<%s>)", extra.Name.Local)
		}
		return nil, fmt.Errorf("parsing plist: %w", err)
	}
	return v, nil
}

// nextStart returns the next start element, skipping whitespace, comments
// and directives. It returns nil when the element named parent ends
// instead; parent "" means the document level.
func nextStart(d *xml.Decoder, parent string) (*xml.StartElement, error) {
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil, fmt.Errorf("unexpected end of document inside <%s>", parent)
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return &t, nil
		case xml.EndElement:
			if t.Name.Local != parent {
				return nil, fmt.Errorf("unexpected </%s> inside <%s>", t.Name.Local, parent)
			}
			return nil, nil
		case xml.CharData:
			if s := strings.TrimSpace(string(t)); s != "" {
				return nil, fmt.Errorf("unexpected text %q inside <%s>", s, parent)
			}
		}
	}
}

// text reads the character data of a leaf element up to its end.
func text(d *xml.Decoder, name string) (string, error) {
	var b strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			return "", fmt.Errorf("reading <%s>: %w", name, err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			b.Write(t)
		case xml.EndElement:
			return b.String(), nil
		case xml.StartElement:
			return "", fmt.Errorf("unexpected <%s> inside <%s>", t.Name.Local, name)
		}
	}
}

func decodeValue(d *xml.Decoder, start xml.StartElement) (any, error) {
	name := start.Name.Local
	switch name {
	case "dict":
		return decodeDict(d)
	case "array":
		arr := []any{}
		for {
			s, err := nextStart(d, "array")
			if err != nil {
				return nil, err
			}
			if s == nil {
				return arr, nil
			}
			v, err := decodeValue(d, *s)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
	case "true", "false":
		if s, err := text(d, name); err != nil || strings.TrimSpace(s) != "" {
			if err == nil {
				err = fmt.Errorf("<%s/> must be empty", name)
			}
			return nil, err
		}
		return name == "true", nil
	}
	s, err := text(d, name)
	if err != nil {
		return nil, err
	}
	switch name {
	case "string":
		return s, nil
	case "integer":
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad <integer> %q: %w", s, err)
		}
		return n, nil
	case "real":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("bad <real> %q: %w", s, err)
		}
		return f, nil
	case "date":
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("bad <date> %q: %w", s, err)
		}
		return t, nil
	case "data":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
		if err != nil {
			return nil, fmt.Errorf("bad <data>: %w", err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("unknown plist element <%s>", name)
}

func decodeDict(d *xml.Decoder) (map[string]any, error) {
	m := map[string]any{}
	for {
		k, err := nextStart(d, "dict")
		if err != nil {
			return nil, err
		}
		if k == nil {
			return m, nil
		}
		if k.Name.Local != "key" {
			return nil, fmt.Errorf("<dict> holds <%s> where a <key> belongs", k.Name.Local)
		}
		key, err := text(d, "key")
		if err != nil {
			return nil, err
		}
		if _, dup := m[key]; dup {
			return nil, fmt.Errorf("duplicate key %q in <dict>", key)
		}
		v, err := nextStart(d, "dict")
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, fmt.Errorf("key %q has no value", key)
		}
		if m[key], err = decodeValue(d, *v); err != nil {
			return nil, fmt.Errorf("key %q: %w", key, err)
		}
	}
}
