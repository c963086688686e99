package packaging

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// plutilLint runs `plutil -lint` on data where plutil exists (macOS).
func plutilLint(t *testing.T, data []byte) {
	t.Helper()
	plutil, err := exec.LookPath("plutil")
	if err != nil {
		return
	}
	p := filepath.Join(t.TempDir(), "x.plist")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(plutil, "-lint", p).CombinedOutput(); err != nil {
		t.Errorf("plutil -lint: %v\n%s", err, out)
	}
}

const plistHead = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
`

func TestDecodePlist(t *testing.T) {
	cases := []struct {
		name string
		body string
		want any
		bad  bool
	}{
		{name: "string", body: `<string>a &amp; b</string>`, want: "a & b"},
		{name: "empty string", body: `<string/>`, want: ""},
		{name: "bools", body: `<array><true/><false/></array>`, want: []any{true, false}},
		{name: "numbers", body: `<array><integer>-42</integer><real>1.5</real></array>`, want: []any{int64(-42), 1.5}},
		{name: "date", body: `<date>2024-05-01T10:00:00Z</date>`, want: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)},
		{name: "data", body: "<data>\n aGVs\n bG8=\n</data>", want: []byte("hello")},
		{name: "nested", body: `<dict><key>a</key><dict><key>b</key><array><string>c</string></array></dict><!-- note --></dict>`,
			want: map[string]any{"a": map[string]any{"b": []any{"c"}}}},
		{name: "empty dict", body: `<dict/>`, want: map[string]any{}},
		{name: "duplicate key", body: `<dict><key>a</key><true/><key>a</key><false/></dict>`, bad: true},
		{name: "key without value", body: `<dict><key>a</key></dict>`, bad: true},
		{name: "value without key", body: `<dict><string>a</string></dict>`, bad: true},
		{name: "stray text", body: `<dict>oops<key>a</key><true/></dict>`, bad: true},
		{name: "bad integer", body: `<integer>ten</integer>`, bad: true},
		{name: "unknown element", body: `<strin>x</strin>`, bad: true},
		{name: "non-empty true", body: `<true>yes</true>`, bad: true},
		{name: "two values", body: `<true/><false/>`, bad: true},
		{name: "no value", body: ``, bad: true},
		{name: "unclosed", body: `<dict><key>a</key><string>x</string>`, bad: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := plistHead + `<plist version="1.0">` + tc.body
			if !strings.HasSuffix(tc.name, "unclosed") {
				doc += `</plist>`
			}
			got, err := DecodePlist(strings.NewReader(doc))
			if tc.bad {
				if err == nil {
					t.Fatalf("accepted %s: %#v", tc.body, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
	if _, err := DecodePlist(strings.NewReader(`<dict></dict>`)); err == nil {
		t.Error("accepted a document whose root is not <plist>")
	}
}

// TestInfoPlist checks the repository's Info.plist: every key the app
// bundle needs, with the right type, and the shared bundle id.
func TestInfoPlist(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "Info.plist"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := DecodePlist(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Info.plist does not parse: %v", err)
	}
	d, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("Info.plist root is %T, want a dict", v)
	}
	want := []struct {
		key  string
		want any // exact value, or a type to check only the type
	}{
		{"CFBundleIdentifier", BundleID},
		{"CFBundleName", "Tend"},
		{"CFBundleDisplayName", "Tend"},
		{"CFBundleExecutable", "tend"},
		{"CFBundlePackageType", "APPL"},
		{"CFBundleShortVersionString", reflect.TypeOf("")},
		{"CFBundleVersion", reflect.TypeOf("")},
		{"LSMinimumSystemVersion", "11.0"},
		{"LSUIElement", true},
		{"NSHighResolutionCapable", true},
		{"CFBundleIconFile", "Tend"},
		// Without these macOS asks with a bare "would like to access"
		// and the daemon cannot see those folders until someone agrees.
		{"NSDesktopFolderUsageDescription", reflect.TypeOf("")},
		{"NSDocumentsFolderUsageDescription", reflect.TypeOf("")},
		{"NSDownloadsFolderUsageDescription", reflect.TypeOf("")},
		{"NSRemovableVolumesUsageDescription", reflect.TypeOf("")},
		{"NSNetworkVolumesUsageDescription", reflect.TypeOf("")},
	}
	for _, w := range want {
		got, ok := d[w.key]
		if !ok {
			t.Errorf("Info.plist lacks %s", w.key)
			continue
		}
		if typ, isType := w.want.(reflect.Type); isType {
			if reflect.TypeOf(got) != typ {
				t.Errorf("%s is %T, want %v", w.key, got, typ)
			}
			continue
		}
		if got != w.want {
			t.Errorf("%s = %#v, want %#v", w.key, got, w.want)
		}
	}
	if s, _ := d["CFBundleShortVersionString"].(string); len(strings.Split(s, ".")) != 3 {
		t.Errorf("CFBundleShortVersionString %q is not major.minor.patch", s)
	}
	if icon, ok := d["CFBundleIconFile"].(string); ok {
		// macOS adds .icns when the name has no extension; build-app.sh
		// copies packaging/Tend.icns into Contents/Resources.
		if filepath.Ext(icon) == "" {
			icon += ".icns"
		}
		if _, err := os.Stat(icon); err != nil {
			t.Errorf("CFBundleIconFile %q: %v", icon, err)
		}
	}
	plutilLint(t, data)
}
