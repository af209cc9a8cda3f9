package dev.fenced.internal.sql;

import java.util.Arrays;
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
        // each place as {start, end, literal}, in text order, three ints a place
        int[] places = new int[3 * literals.length];
        int count = 0;
        boolean[] placed = new boolean[literals.length];
        for (Token t : tokens) {
            if (t.kind() == Token.Kind.STRING || t.kind() == Token.Kind.NUMBER) {
                Integer i = standIns.get(t.text());
                if (i != null) {
                    if (count == places.length) { // a literal placed twice: a DELETE's WHERE is sent twice
                        places = Arrays.copyOf(places, Math.max(3, places.length * 2));
                    }
                    places[count++] = t.start();
                    places[count++] = t.end();
                    places[count++] = i;
                    placed[i] = true;
                }
            }
        }
        for (boolean p : placed) {
            if (!p) {
                return null;
            }
        }
        places = Arrays.copyOf(places, count);
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

    /**
     * A stretch {@code [from, to)} of the probe's fenced text as the pieces between literal places, each piece
     * kept as its bounds in that one text (not a copy of its own), and which literal goes in each place.
     *
     * @param bounds  {@code from, to} of each piece, in order: one more piece than places
     * @param literal the literal for each place
     * @param fixed   the characters of the pieces together
     * @param whole   the stretch itself when it has no place (sent as is, no copy per text)
     */
    private record Pasted(
            String text,
            int[] bounds,
            int[] literal,
            int fixed,
            @Nullable String whole) {

        /** The stretch {@code [from, to)} of {@code text}; {@code places} as {@link #build} collects them. */
        static Pasted of(String text, int from, int to, int[] places) {
            int inside = 0;
            for (int p = 0; p < places.length; p += 3) {
                if (places[p] >= from && places[p + 1] <= to) {
                    inside++;
                }
            }
            if (inside == 0) {
                return new Pasted(text, new int[] {from, to}, new int[0], to - from, text.substring(from, to));
            }
            int[] bounds = new int[2 * inside + 2];
            int[] literal = new int[inside];
            int copied = from;
            int k = 0;
            for (int p = 0; p < places.length; p += 3) {
                if (places[p] >= from && places[p + 1] <= to) {
                    bounds[2 * k] = copied;
                    bounds[2 * k + 1] = places[p];
                    literal[k++] = places[p + 2];
                    copied = places[p + 1];
                }
            }
            bounds[2 * k] = copied;
            bounds[2 * k + 1] = to;
            int fixed = 0;
            for (int b = 0; b < bounds.length; b += 2) {
                fixed += bounds[b + 1] - bounds[b];
            }
            return new Pasted(text, bounds, literal, fixed, null);
        }

        String with(String[] literals) {
            if (whole != null) {
                return whole;
            }
            int size = fixed;
            for (int i : literal) {
                size += literals[i].length();
            }
            StringBuilder b = new StringBuilder(size);
            b.append(text, bounds[0], bounds[1]);
            for (int k = 0; k < literal.length; k++) {
                b.append(literals[literal[k]]).append(text, bounds[2 * k + 2], bounds[2 * k + 3]);
            }
            return b.toString();
        }
    }
}
