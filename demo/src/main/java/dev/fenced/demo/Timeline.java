package dev.fenced.demo;

import java.util.List;
import java.util.Locale;

/**
 * One restaurant's night as the classic diagram of a paused holder: each holder's lease, the freeze, the
 * newer holder's write and what became of the stale one, with the total the restaurant should hold and the
 * one it holds.
 */
final class Timeline {

    private static final int WIDTH = 960;
    private static final int LEFT = 200;
    private static final int ROW = 100;

    private Timeline() {}

    /** The SVG of one mode's incident. */
    static String render(Incident incident, Options o) {
        return svg(incident, o);
    }

    private static int height(Incident incident) {
        return 110 + ROW * incident.holders().size() + 75;
    }

    /** The modes' pictures in one, one above the other: the lease alone's damage over fenced's refusal. */
    static String combined(List<Incident> incidents, Options o) {
        StringBuilder inner = new StringBuilder();
        int y = 0;
        for (Incident incident : incidents) {
            String one = svg(incident, o);
            // a nested svg keeps each picture's own coordinates; only its top moves
            inner.append(one.replaceFirst("^<svg ", "<svg y='" + y + "' "));
            y += height(incident);
        }
        return "<svg xmlns='http://www.w3.org/2000/svg' width='" + WIDTH + "' height='" + y + "' viewBox='0 0 " + WIDTH
                + " " + y + "'>\n" + inner + "</svg>\n";
    }

    private static String svg(Incident incident, Options o) {
        List<Incident.Holder> runs = incident.holders();
        Options.Mode mode = incident.mode();
        long ttl = o.scaled(o.lease).toMillis();
        long start = runs.stream().mapToLong(Incident.Holder::acquired).min().orElse(0);
        long end = runs.stream().mapToLong(Incident.Holder::ended).max().orElse(start + 1);
        long span = Math.max(1, end - start);
        long t0 = start - span / 20;
        double scale = (WIDTH - LEFT - 30) / (double) (span + span / 10);
        int height = height(incident);
        StringBuilder b = new StringBuilder();
        b.append("<svg xmlns='http://www.w3.org/2000/svg' width='")
                .append(WIDTH)
                .append("' height='")
                .append(height)
                .append("' viewBox='0 0 ")
                .append(WIDTH)
                .append(' ')
                .append(height)
                .append("' font-family='sans-serif' font-size='13'>\n")
                .append("<defs><pattern id='frozen' width='8' height='8' patternUnits='userSpaceOnUse'"
                        + " patternTransform='rotate(45)'><rect width='4' height='8' fill='#bbb'/></pattern></defs>\n")
                .append("<rect width='100%' height='100%' fill='white'/>\n")
                .append(text(
                        20,
                        28,
                        (mode.fenced ? "Lease + fenced" : mode.renew ? "Lease only" : "Lease without renewal")
                                + ": restaurant " + incident.restaurant() + ", a holder freezes past its "
                                + fmt(o.lease) + " s lease",
                        "font-size='16' font-weight='bold'"))
                .append(text(
                        20,
                        50,
                        "should total " + Incident.money(incident.expected()) + " (the sum of its orders), holds "
                                + Incident.money(incident.actual())
                                + (incident.wrong()
                                        ? ": WRONG by "
                                                + Incident.money(Math.abs(incident.expected() - incident.actual()))
                                        : ": right"),
                        "font-size='14' font-weight='bold' fill='" + (incident.wrong() ? "#c00" : "#2a9d3a") + "'"))
                .append(text(
                        20,
                        70,
                        "times in the article's seconds; lease " + fmt(o.lease) + " s renewed every " + fmt(o.renew)
                                + " s, freeze " + fmt(o.pause) + " s; a higher token is a newer holder",
                        "fill='#555'"));
        int y = 100;
        for (int i = 0; i < runs.size(); i++) {
            Incident.Holder r = runs.get(i);
            // the database's own answer to "when did the lease expire": when it granted the next token
            Long takeover = i + 1 < runs.size() ? runs.get(i + 1).acquired() : null;
            double x0 = x(r.acquired(), t0, scale);
            b.append(text(20, y + 21, r.worker(), "font-weight='bold'"))
                    .append(text(20, y + 38, "token " + r.token(), "font-size='12' fill='#333'"))
                    .append(text(20, y + 54, "counted " + Incident.money(r.amount()), "font-size='12' fill='#333'"));
            long heldUntil = r.pauseFrom() != null ? r.pauseFrom() : r.ended();
            double heldWidth = x(heldUntil, t0, scale) - x0;
            b.append(rect(x0, y + 10, heldWidth, 22, "#4a7bd0"));
            if (heldWidth > 95) {
                b.append(text(x0 + 4, y + 26, "holds the lease", "fill='white' font-size='11'"));
            }
            if (r.pauseFrom() != null) {
                double pf = x(r.pauseFrom(), t0, scale);
                double expiry = x(takeover != null ? takeover : r.pauseFrom() + ttl, t0, scale);
                double pt = x(r.pauseTo(), t0, scale);
                b.append(rect(pf, y + 10, expiry - pf, 22, "#a9c1ea"))
                        .append(rect(pf, y + 36, pt - pf, 14, "url(#frozen)"))
                        .append(text(
                                pf + 2,
                                y + 62,
                                "in-flight".equals(r.freeze())
                                        ? "its write held on the way (stalled network)"
                                        : "frozen (GC pause, stalled VM)",
                                "font-size='11' fill='#444'"))
                        .append("<line x1='")
                        .append(f(expiry))
                        .append("' y1='")
                        .append(y + 4)
                        .append("' x2='")
                        .append(f(expiry))
                        .append("' y2='")
                        .append(y + 68)
                        .append("' stroke='#c00' stroke-dasharray='4,3'/>\n")
                        .append(fitted(
                                expiry + 3,
                                y + 78,
                                takeover != null
                                        ? "lease expired: granted to token "
                                                + runs.get(i + 1).token()
                                        : "lease expired",
                                "font-size='11' fill='#c00'"))
                        .append(rect(expiry, y + 17, x(r.ended(), t0, scale) - expiry, 8, "#f1b9b9"));
            }
            if (r.writeAt() != null) {
                double wx = x(r.writeAt(), t0, scale);
                boolean ok = r.outcome().equals("written");
                boolean stale = r.pauseFrom() != null;
                String colour = ok ? (stale ? "#e08000" : "#2a9d3a") : "#c00";
                String label = switch (r.outcome()) {
                    case "written" ->
                        stale
                                ? "stale write LANDS: " + Incident.money(r.amount()) + " over the newer total"
                                : "writes " + Incident.money(r.amount());
                    case "refused-stale" -> "stale write refused by the database";
                    case "refused-lost" -> "stale write refused before sending";
                    default -> r.outcome();
                };
                b.append("<circle cx='")
                        .append(f(wx))
                        .append("' cy='")
                        .append(y + 21)
                        .append("' r='7' fill='")
                        .append(colour)
                        .append("'/>\n")
                        .append(fitted(wx + 10, y + 4, label, "font-size='12' fill='" + colour + "'"));
            }
            y += ROW;
        }
        int axis = y + 10;
        b.append("<line x1='")
                .append(LEFT - 10)
                .append("' y1='")
                .append(axis)
                .append("' x2='")
                .append(WIDTH - 20)
                .append("' y2='")
                .append(axis)
                .append("' stroke='#333'/>\n");
        long articleMs = Math.max(1, o.articleSecond.toMillis());
        long step = niceStep(span / articleMs / 8) * articleMs;
        for (long t = 0; t <= span + span / 20; t += step) {
            double tx = x(start + t, t0, scale);
            b.append("<line x1='")
                    .append(f(tx))
                    .append("' y1='")
                    .append(axis)
                    .append("' x2='")
                    .append(f(tx))
                    .append("' y2='")
                    .append(axis + 5)
                    .append("' stroke='#333'/>\n")
                    .append(text(tx - 8, axis + 20, (t / articleMs) + " s", "font-size='11'"));
        }
        legend(b, axis + 45);
        return b.append("</svg>\n").toString();
    }

    /** What the bars, the hatching and the dots mean, in one row under the axis. */
    private static void legend(StringBuilder b, int y) {
        double x = 20;
        String[][] boxes = {
            {"#4a7bd0", "holds the lease"},
            {"#a9c1ea", "frozen, lease still valid"},
            {"#f1b9b9", "frozen, lease expired"},
            {"url(#frozen)", "frozen"}
        };
        for (String[] box : boxes) {
            b.append(rect(x, y - 10, 18, 12, box[0])).append(text(x + 23, y, box[1], "font-size='11'"));
            x += 34 + box[1].length() * 5.6;
        }
        String[][] dots = {{"#2a9d3a", "write"}, {"#e08000", "stale write lands"}, {"#c00", "stale write refused"}};
        for (String[] dot : dots) {
            b.append("<circle cx='")
                    .append(f(x + 6))
                    .append("' cy='")
                    .append(y - 4)
                    .append("' r='6' fill='")
                    .append(dot[0])
                    .append("'/>\n")
                    .append(text(x + 16, y, dot[1], "font-size='11'"));
            x += 28 + dot[1].length() * 5.6;
        }
    }

    private static long niceStep(long rough) {
        for (long n : new long[] {1, 2, 5, 10, 15, 20, 30, 60, 120, 300}) {
            if (n >= rough) {
                return n;
            }
        }
        return rough;
    }

    private static double x(long t, long t0, double scale) {
        return LEFT + (t - t0) * scale;
    }

    /** Text that starts at x, or ends just left of it when it would run off the picture. */
    private static String fitted(double x, double y, String s, String attrs) {
        boolean overflows = x + s.length() * 6.8 > WIDTH - 10;
        return overflows ? text(x - 20, y, s, attrs + " text-anchor='end'") : text(x, y, s, attrs);
    }

    private static String rect(double x, double y, double w, double h, String fill) {
        return "<rect x='" + f(x) + "' y='" + f(y) + "' width='" + f(Math.max(1, w)) + "' height='" + f(h) + "' fill='"
                + fill + "'/>\n";
    }

    private static String text(double x, double y, String s, String attrs) {
        return "<text x='" + f(x) + "' y='" + f(y) + "' " + attrs + ">"
                + s.replace("&", "&amp;").replace("<", "&lt;") + "</text>\n";
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
