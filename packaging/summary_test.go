package packaging

import (
	"strings"
	"testing"
)

func TestStatusSummary(t *testing.T) {
	cases := []struct {
		name string
		st   Status
		want []string
	}{
		{"running", Status{Manager: "systemd", Path: "/h/.config/systemd/user/tend.service", Installed: true,
			Binary: "/usr/bin/tend", Home: "/h/t", Reachable: true, Active: true, Enabled: true, State: "active"},
			[]string{"installed: /h/.config/systemd/user/tend.service", "/usr/bin/tend daemon (TEND_HOME=/h/t)", "active, starts at login"}},
		{"stopped", Status{Manager: "launchd", Path: "/p", Installed: true, Binary: "/b", Reachable: true, State: "not loaded"},
			[]string{"not loaded (not running), does not start at login"}},
		{"absent, no manager", Status{Manager: "systemd", Path: "/p", Detail: "systemctl is not installed"},
			[]string{"not installed (no /p); `tend service install`", "state unknown (systemctl is not installed)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.st.Summary()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("summary lacks %q:\n%s", w, got)
				}
			}
		})
	}
}
