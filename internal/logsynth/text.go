package logsynth

import "math/rand/v2"

// Payload text: what real logs carry and metrics never read (tool outputs,
// file contents, prompts, model thoughts), in English and Chinese, with the
// quotes, backslashes and newlines that make JSON strings need escapes.
var sentences = []string{
	"Let me look at the failing test before changing anything.",
	"The build passes locally but the integration suite times out on CI.",
	"I'll read the configuration loader to see where the default comes from.",
	"Found it: the retry loop never resets its backoff after a success.",
	"Running the linter over the changed packages now.",
	"The migration adds a nullable column, so existing rows are unaffected.",
	"Summary: three files changed, two tests added, no public API changes.",
	"error: cannot find module providing package example.com/internal/cache",
	"--- FAIL: TestParseHeader (0.02s)\n    header_test.go:41: got \"text/plain\", want \"application/json\"",
	"func (s *Server) Close() error {\n\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n\treturn s.ln.Close()\n}",
	"SELECT user_id, count(*) FROM events WHERE kind = 'click' GROUP BY user_id;",
	"C:\\Users\\dev\\project\\src\\main.rs:12:5: warning: unused variable `x`",
	"{\"level\":\"info\",\"msg\":\"request served\",\"status\":200,\"latency_ms\":12.5}",
	"The user wants the report grouped by week, not by day.",
	"Tests: 214 passed, 3 skipped, 0 failed (41.2s)",
	"先阅读现有的测试用例，确认失败的原因。",
	"这个函数在并发调用时没有加锁，可能导致数据竞争。",
	"已经修复了配置文件的解析问题，并补充了单元测试。",
	"通过百度查询最新的股价信息，并整理成表格。",
	"数据库迁移脚本需要先在预发布环境验证。",
	"分析日志发现，超时主要集中在凌晨两点到三点之间。",
	"用户要求把报告按周汇总，而不是按天。",
	"重构后接口保持不变，调用方无需修改。",
	"「注意」：请勿在生产环境直接执行该命令。",
	"总结：修改了三个文件，新增两个测试，没有破坏性变更。",
	"下一步：运行完整的集成测试，并检查覆盖率报告。",
	"emoji and symbols survive too: ✅ ⚠️ 🚀 — “quoted” ‘text’ … ±∞",
}

// text returns about n bytes of payload text.
func text(r *rand.Rand, n int) string {
	b := make([]byte, 0, n+160)
	for len(b) < n {
		if len(b) > 0 {
			if r.IntN(4) == 0 {
				b = append(b, '\n')
			} else {
				b = append(b, ' ')
			}
		}
		b = append(b, sentences[r.IntN(len(sentences))]...)
	}
	return string(b)
}

// short returns one sentence, for titles and prompts.
func short(r *rand.Rand) string { return sentences[r.IntN(len(sentences))] }
