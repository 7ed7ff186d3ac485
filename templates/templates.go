// Package templates embeds the HTML templates and the static assets the
// dashboard ships: its stylesheet, its script, and the vendored ECharts build
// (from the npm package echarts@5.6.0, with its licences).
package templates

import "embed"

// FS holds *.html and assets/.
//
//go:embed *.html assets
var FS embed.FS
