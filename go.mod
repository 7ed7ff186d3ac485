module github.com/agentstat/agentstat

go 1.26.8

require (
	github.com/DataDog/sketches-go v1.4.8
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/dustin/go-humanize v1.1.0
	github.com/go-echarts/go-echarts/v2 v2.6.7
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3
	github.com/spf13/pflag v1.0.10
	github.com/yuin/goldmark v1.8.7
	golang.org/x/sys v0.49.0
)

require google.golang.org/protobuf v1.36.11 // indirect
