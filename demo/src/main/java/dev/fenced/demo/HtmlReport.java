package dev.fenced.demo;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The pictures a person opens: one SVG per mode (its incident's time line), nightly-totals.svg with the modes one
 * above the other (the picture in docs/), and report.html, which shows the introduction, the modes' time lines side
 * by side and the summary.
 */
final class HtmlReport {

    private HtmlReport() {}

    /**
     * Where the report goes by default: demo-report beside the jar (demo/target/ after the build) or beside the
     * classes directory, else in the working directory.
     */
    static Path defaultDirectory() {
        java.security.CodeSource source = DemoMain.class.getProtectionDomain().getCodeSource();
        if (source != null && source.getLocation() != null) {
            try {
                Path parent = Path.of(source.getLocation().toURI()).getParent();
                if (parent != null
                        && parent.getFileName() != null
                        && parent.getFileName().toString().equals("target")) {
                    return parent.resolve("demo-report");
                }
            } catch (URISyntaxException | IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
                // not a file on disk (an unusual class loader): the working directory will do
            }
        }
        return Path.of("fenced-demo-report").toAbsolutePath();
    }

    /** Writes the SVGs and report.html into {@code dir}; returns the HTML file. */
    static Path write(Path dir, List<ModeResult> results, Options o) throws IOException {
        Files.createDirectories(dir);
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n")
                .append("<title>fenced demo: the nightly totals, lease only and lease + fenced</title>\n")
                .append("<style>\n")
                .append("body{font-family:sans-serif;margin:24px;color:#222;max-width:1960px}\n")
                .append("h1{font-size:22px;margin:0 0 8px}\n")
                .append("p.intro{max-width:900px;line-height:1.45}\n")
                .append(".modes{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:20px}\n")
                .append(".mode{border:1px solid #ccc;border-radius:6px;padding:12px}\n")
                .append(".mode h2{font-size:18px;margin:0 0 6px}\n")
                .append(".mode svg{width:100%;height:auto}\n")
                .append("pre{font-size:12px;white-space:pre-wrap;background:#f6f6f6;padding:8px}\n")
                .append("table{border-collapse:collapse;margin:12px 0}\n")
                .append("td,th{padding:3px 10px;border-bottom:1px solid #e4e4e4;text-align:right}\n")
                .append("td:first-child,th:first-child{text-align:left}\n")
                .append("tr.decisive td{font-weight:bold;background:#fff4d6}\n")
                .append("</style></head><body>\n")
                .append("<h1>The nightly totals: a lease alone, and a lease plus fenced</h1>\n")
                .append("<p><b>")
                .append(escape(Report.sentence(results)))
                .append("</b></p>\n")
                .append("<p class='intro'>");
        for (String line : DemoMain.introduction(o)) {
            b.append(escape(line)).append(' ');
        }
        b.append("</p>\n<p class='intro'>");
        for (String line : DemoMain.TOKENS) {
            b.append(escape(line)).append(' ');
        }
        b.append("</p>\n<div class='modes'>\n");
        for (ModeResult r : results) {
            b.append("<div class='mode'><h2>")
                    .append(escape(Report.heading(r)))
                    .append(": ")
                    .append(r.wrongTotals)
                    .append(r.wrongTotals == 1 ? " total" : " totals")
                    .append(" left wrong</h2>\n");
            if (r.incident == null) {
                b.append("<p>No frozen holder met a newer holder's write in this night: nothing to draw.</p>\n");
            } else {
                String svg = Timeline.render(r.incident, o);
                Files.writeString(dir.resolve(r.mode.key + ".svg"), svg);
                // the picture's own title names the restaurant and its totals
                b.append(svg).append("<pre>");
                for (String line : r.incident.story(o)) {
                    b.append(escape(line)).append('\n');
                }
                b.append("</pre>\n");
            }
            b.append("</div>\n");
        }
        List<Incident> incidents =
                results.stream().map(r -> r.incident).filter(i -> i != null).toList();
        if (!incidents.isEmpty()) {
            Files.writeString(dir.resolve("nightly-totals.svg"), Timeline.combined(incidents, o));
        }
        b.append("</div>\n<h2>The night, counted</h2>\n<table><tr><th></th>");
        for (ModeResult r : results) {
            b.append("<th>").append(escape(Report.heading(r))).append("</th>");
        }
        b.append("</tr>\n");
        boolean first = true;
        for (Report.Line line : Report.LINES) {
            b.append(first ? "<tr class='decisive'>" : "<tr>")
                    .append("<td>")
                    .append(line.label().startsWith(" ") ? "&nbsp;&nbsp;&nbsp;&nbsp;" : "")
                    .append(escape(line.label().strip()))
                    .append("</td>");
            for (ModeResult r : results) {
                b.append("<td>").append(line.value().applyAsLong(r)).append("</td>");
            }
            b.append("</tr>\n");
            first = false;
        }
        b.append("</table>\n<p class='intro'>");
        for (String line : Report.NOTES) {
            b.append(escape(line)).append(' ');
        }
        b.append("</p>\n<p><b>").append(escape(Report.sentence(results))).append("</b></p>\n</body></html>\n");
        Path html = dir.resolve("report.html");
        Files.writeString(html, b.toString());
        return html;
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
