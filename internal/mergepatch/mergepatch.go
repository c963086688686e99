// Package mergepatch applies JSON merge patches (RFC 7386) to JSON
// documents decoded into maps: a null removes a key, an object merges
// into the object it meets, key by key and at every depth, and any other
// value (a string, a number, a list) replaces what was there.
//
// tend's edits are merge patches so that changing one leaf of a nested
// object (guards.cooldownSeconds) keeps its siblings (guards.maxFires).
package mergepatch

import (
	"encoding/json"
	"reflect"
)

// Apply returns target with patch merged into it. It changes neither
// argument's maps in place beyond reusing unchanged values.
func Apply(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	out := make(map[string]any, len(t)+len(p))
	if ok {
		for k, v := range t {
			out[k] = v
		}
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = Apply(out[k], v)
	}
	return out
}

// Into merges patch into the JSON form of v and decodes the result back
// into v, which it replaces whole: fields the result lacks are zero. v
// must be a pointer to a value that encodes as a JSON object; on an error
// v is left as it was.
func Into(v any, patch map[string]any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	raw, err = json.Marshal(Apply(doc, patch))
	if err != nil {
		return err
	}
	fresh := reflect.New(reflect.TypeOf(v).Elem())
	if err := json.Unmarshal(raw, fresh.Interface()); err != nil {
		return err
	}
	reflect.ValueOf(v).Elem().Set(fresh.Elem())
	return nil
}
