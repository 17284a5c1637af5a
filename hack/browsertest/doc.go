// Package browsertest opens phalanx's HTML reports in headless Chromium.
package browsertest
