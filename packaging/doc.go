// Package packaging installs tend as a per-user background service and
// describes its macOS app bundle.
//
// On Linux the service is a systemd user unit
// (~/.config/systemd/user/tend.service, or under $XDG_CONFIG_HOME); on macOS
// it is a launchd agent (~/Library/LaunchAgents/dev.tend.agent.plist). Both
// are rendered from templates embedded in this package and always point at
// the real path of the installed binary. Installing is idempotent, and
// uninstalling removes only what installing wrote: the watchers and their
// history under TEND_HOME are never touched.
//
// The service manager is reached only through the command runner in [Env],
// so tests can record the commands instead of running them.
package packaging

// Tend.icns, the app's icon, is drawn from the tray's icon (tray.AppIcon).
//go:generate go test -run TestTendIcns -update .

// BundleID is tend's bundle identifier: the launchd label, the name of the
// launch agent's plist and CFBundleIdentifier in the repository's Info.plist.
const BundleID = "dev.tend.agent"

// UnitName is the name of the systemd user unit.
const UnitName = "tend.service"
