package dev.fenced.internal.sql;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One plan for every text of a {@link LiteralShape}: the plan of the shape's probe (each literal replaced by a
 * distinct stand-in) with its text cut where the stand-ins landed, so a text of the shape gets its plan by pasting
 * its own literals in, a copy per place (a DELETE's WHERE is sent twice). Built only when pasting the first text's
 * literals back gives exactly the plan the full rewrite made for that text: same text, same parameter map, same
 * tables and modes. A refused or unreadable probe gives no template.
 */
final class ShapeTemplate {

    /** The probe's plan: parameters, token places and writes are the same for every text of the shape. */
    private final RewritePlan plan;
    /** The sent text, and each of its token-cut segments, as pieces between literal places. */
    private final @Nullable Pasted sql;

    private final Pasted @Nullable [] segments;

    private ShapeTemplate(RewritePlan plan, @Nullable Pasted sql, Pasted @Nullable [] segments) {
        this.plan = plan;
        this.sql = sql;
        this.segments = segments;
    }

    /**
     * The template of {@code shape} from its probe's plan, or null when it cannot be trusted: the probe was refused,
     * a stand-in is missing from the fenced text, or pasting the shape's own literals back does not give
     * {@code expected}, the full rewrite of the shape's text.
     */
    static @Nullable ShapeTemplate build(LiteralShape shape, RewritePlan expected, RewritePlan probed) {
        if (expected instanceof RewritePlan.Passthrough) {
            return probed == expected ? new ShapeTemplate(expected, null, null) : null;
        }
        if (!(expected instanceof RewritePlan.Fenced want) || !(probed instanceof RewritePlan.Fenced got)) {
            return null;
        }
        String text = got.sql();
        List<Token> tokens;
        try {
            tokens = SqlLexer.tokenizeStrict(text);
        } catch (SqlLexer.LexException e) {
            return null;
        }
        String[] literals = shape.literals();
        Map<String, Integer> standIns = new HashMap<>();
        for (int i = 0; i < literals.length; i++) {
            standIns.put(shape.standIn(i), i);
        }
        List<int[]> places = new ArrayList<>(); // {start, end, literal}
        boolean[] placed = new boolean[literals.length];
        for (Token t : tokens) {
            if (t.kind() == Token.Kind.STRING || t.kind() == Token.Kind.NUMBER) {
                Integer i = standIns.get(t.text());
                if (i != null) {
                    places.add(new int[] {t.start(), t.end(), i});
                    placed[i] = true;
                }
            }
        }
        for (boolean p : placed) {
            if (!p) {
                return null;
            }
        }
        String[] cut = got.segments();
        Pasted[] segments = new Pasted[cut.length];
        int from = 0;
        for (int s = 0; s < cut.length; s++) {
            int to = from + cut[s].length();
            segments[s] = Pasted.of(text, from, to, places);
            from = to + 1; // the token's '?' between two segments
        }
        ShapeTemplate template = new ShapeTemplate(got, Pasted.of(text, 0, text.length(), places), segments);
        RewritePlan again = template.instantiate(literals);
        return again instanceof RewritePlan.Fenced f && f.sameAs(want) ? template : null;
    }

    /** The plan for a text of this shape whose masked literals are {@code literals}. */
    RewritePlan instantiate(String[] literals) {
        if (!(plan instanceof RewritePlan.Fenced fenced) || sql == null || segments == null) {
            return plan;
        }
        String[] cut = new String[segments.length];
        for (int s = 0; s < cut.length; s++) {
            cut[s] = segments[s].with(literals);
        }
        return fenced.withText(sql.with(literals), cut);
    }

    /** A text as the pieces between literal places, and which literal goes in each place. */
    private record Pasted(String[] pieces, int[] literal, int length) {

        static Pasted of(String text, int from, int to, List<int[]> places) {
            List<String> pieces = new ArrayList<>();
            List<Integer> literal = new ArrayList<>();
            int copied = from;
            int fixed = 0;
            for (int[] p : places) {
                if (p[0] >= from && p[1] <= to) {
                    pieces.add(text.substring(copied, p[0]));
                    fixed += p[0] - copied;
                    literal.add(p[2]);
                    copied = p[1];
                }
            }
            pieces.add(text.substring(copied, to));
            fixed += to - copied;
            return new Pasted(
                    pieces.toArray(new String[0]),
                    literal.stream().mapToInt(Integer::intValue).toArray(),
                    fixed);
        }

        String with(String[] literals) {
            if (literal.length == 0) {
                return pieces[0];
            }
            int size = length;
            for (int i : literal) {
                size += literals[i].length();
            }
            StringBuilder b = new StringBuilder(size);
            b.append(pieces[0]);
            for (int k = 0; k < literal.length; k++) {
                b.append(literals[literal[k]]).append(pieces[k + 1]);
            }
            return b.toString();
        }
    }
}
