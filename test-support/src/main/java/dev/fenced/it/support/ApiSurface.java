package dev.fenced.it.support;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The public API of a published jar, as text: every public type outside {@code .internal.} packages with its public
 * and protected members, erased, one per line, sorted. A test compares it with the committed baseline
 * ({@code <module>/api/<artifactId>.txt}), so a new public type or member is a visible decision in review, and a
 * public type that lands outside the API packages by mistake shows up at once.
 *
 * <p>Read from the class files themselves (no class loading), so the jar's dependencies need not be present.
 */
public final class ApiSurface {

    private static final int PUBLIC = 0x0001;
    private static final int PROTECTED = 0x0004;
    private static final int STATIC = 0x0008;
    private static final int FINAL = 0x0010;
    private static final int BRIDGE_OR_VOLATILE = 0x0040;
    private static final int INTERFACE = 0x0200;
    private static final int ABSTRACT = 0x0400;
    private static final int SYNTHETIC = 0x1000;
    private static final int ANNOTATION = 0x2000;
    private static final int ENUM = 0x4000;

    private ApiSurface() {}

    private static boolean isClassFile(String name) {
        return name.endsWith(".class")
                && !name.startsWith("META-INF/")
                && !name.endsWith("module-info.class")
                && !name.endsWith("package-info.class");
    }

    /** The API of {@code jar} (a jar file or a directory of class files) as baseline text. */
    public static String of(Path jar) throws IOException {
        Map<String, byte[]> classes = new TreeMap<>();
        if (Files.isDirectory(jar)) {
            try (Stream<Path> files = Files.walk(jar)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    String name = jar.relativize(file).toString().replace(java.io.File.separatorChar, '/');
                    if (isClassFile(name)) {
                        classes.put(name.substring(0, name.length() - ".class".length()), Files.readAllBytes(file));
                    }
                }
            }
        } else {
            try (JarFile file = new JarFile(jar.toFile())) {
                for (Enumeration<JarEntry> e = file.entries(); e.hasMoreElements(); ) {
                    JarEntry entry = e.nextElement();
                    String name = entry.getName();
                    if (isClassFile(name)) {
                        try (InputStream in = file.getInputStream(entry)) {
                            classes.put(name.substring(0, name.length() - ".class".length()), in.readAllBytes());
                        }
                    }
                }
            }
        }
        Map<String, ClassInfo> infos = new TreeMap<>();
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            infos.put(e.getKey(), ClassInfo.read(e.getValue()));
        }
        StringBuilder out = new StringBuilder();
        for (ClassInfo info : infos.values()) {
            if (isApi(info, infos)) {
                out.append(info.header()).append('\n');
                for (String member : info.members) {
                    out.append("  ").append(member).append('\n');
                }
            }
        }
        return out.toString();
    }

    /**
     * Compares {@code jar}'s API with {@code baseline}; with {@code -Dfencedtest.api.update=true} writes the baseline
     * instead. Returns null when they agree, else a message for the assertion.
     */
    public static String compare(Path jar, Path baseline) throws IOException {
        String actual = of(jar);
        if (Boolean.getBoolean("fencedtest.api.update")) {
            Files.createDirectories(baseline.getParent());
            Files.writeString(baseline, actual, StandardCharsets.UTF_8);
            return null;
        }
        String expected = Files.exists(baseline) ? Files.readString(baseline, StandardCharsets.UTF_8) : "";
        if (expected.equals(actual)) {
            return null;
        }
        List<String> was = List.of(expected.split("\n"));
        List<String> is = List.of(actual.split("\n"));
        List<String> diff = new ArrayList<>();
        for (String line : is) {
            if (!was.contains(line)) {
                diff.add("+ " + line);
            }
        }
        for (String line : was) {
            if (!is.contains(line)) {
                diff.add("- " + line);
            }
        }
        return "The public API of " + jar.getFileName() + " differs from " + baseline + " (a new or removed public type"
                + " or member is a decision: update the baseline with -Dfencedtest.api.update=true and commit it):\n"
                + String.join("\n", diff);
    }

    /** Public, outside an internal package, and (for a nested type) inside public types all the way out. */
    private static boolean isApi(ClassInfo info, Map<String, ClassInfo> all) {
        if (info.name.contains("/internal/") || (info.access & PUBLIC) == 0 || (info.access & SYNTHETIC) != 0) {
            return false;
        }
        int dollar = info.name.lastIndexOf('$');
        if (dollar < 0) {
            return true;
        }
        ClassInfo outer = all.get(info.name.substring(0, dollar));
        return outer != null && isApi(outer, all);
    }

    /** The parts of a class file the API needs: its name, kind, supertypes and non-private members. */
    private static final class ClassInfo {
        String name;
        int access;
        String superName;
        final List<String> interfaces = new ArrayList<>();
        final List<String> members = new ArrayList<>();

        static ClassInfo read(byte[] bytes) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            if (in.readInt() != 0xCAFEBABE) {
                throw new IOException("not a class file");
            }
            in.readUnsignedShort();
            in.readUnsignedShort();
            int count = in.readUnsignedShort();
            String[] utf8 = new String[count];
            int[] classIndex = new int[count];
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[i] = in.readUTF();
                    case 7 -> classIndex[i] = in.readUnsignedShort();
                    case 8, 16, 19, 20 -> in.readUnsignedShort();
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                    case 15 -> {
                        in.readUnsignedByte();
                        in.readUnsignedShort();
                    }
                    case 5, 6 -> {
                        in.readLong();
                        i++;
                    }
                    default -> throw new IOException("unknown constant pool tag " + tag);
                }
            }
            ClassInfo info = new ClassInfo();
            info.access = in.readUnsignedShort();
            info.name = utf8[classIndex[in.readUnsignedShort()]];
            int superIndex = in.readUnsignedShort();
            info.superName = superIndex == 0 ? null : utf8[classIndex[superIndex]];
            int interfaces = in.readUnsignedShort();
            for (int i = 0; i < interfaces; i++) {
                info.interfaces.add(utf8[classIndex[in.readUnsignedShort()]].replace('/', '.'));
            }
            Collections.sort(info.interfaces);
            for (int kind = 0; kind < 2; kind++) {
                int n = in.readUnsignedShort();
                for (int i = 0; i < n; i++) {
                    int access = in.readUnsignedShort();
                    String name = utf8[in.readUnsignedShort()];
                    String descriptor = utf8[in.readUnsignedShort()];
                    skipAttributes(in);
                    boolean visible = (access & (PUBLIC | PROTECTED)) != 0
                            && (access & SYNTHETIC) == 0
                            && !(kind == 1 && (access & BRIDGE_OR_VOLATILE) != 0)
                            && !name.equals("<clinit>");
                    if (visible) {
                        info.members.add(
                                kind == 0 ? field(access, name, descriptor) : method(access, name, descriptor, info));
                    }
                }
            }
            Collections.sort(info.members);
            return info;
        }

        private static void skipAttributes(DataInputStream in) throws IOException {
            int n = in.readUnsignedShort();
            for (int i = 0; i < n; i++) {
                in.readUnsignedShort();
                in.skipNBytes(in.readInt());
            }
        }

        String header() {
            StringBuilder s = new StringBuilder(
                    modifiers(access & ~(INTERFACE | ABSTRACT | ANNOTATION | ENUM | SYNTHETIC | 0x0020)));
            String kind = (access & ANNOTATION) != 0
                    ? "@interface"
                    : (access & INTERFACE) != 0
                            ? "interface"
                            : (access & ENUM) != 0 ? "enum" : ((access & ABSTRACT) != 0 ? "abstract " : "") + "class";
            s.append(kind).append(' ').append(name.replace('/', '.'));
            if (superName != null
                    && (access & (INTERFACE | ENUM)) == 0
                    && !superName.equals("java/lang/Object")
                    && !superName.equals("java/lang/Record")) {
                s.append(" extends ").append(superName.replace('/', '.'));
            }
            if ((access & ENUM) == 0 && superName != null && superName.equals("java/lang/Record")) {
                s.append(" (record)");
            }
            List<String> shown = new ArrayList<>(interfaces);
            shown.remove("java.lang.annotation.Annotation");
            if (!shown.isEmpty()) {
                s.append((access & INTERFACE) != 0 ? " extends " : " implements ")
                        .append(String.join(", ", shown));
            }
            return s.toString();
        }

        private static String field(int access, String name, String descriptor) {
            return modifiers(access & ~(BRIDGE_OR_VOLATILE | 0x0080 | ENUM)) + type(descriptor, new int[] {0}) + " "
                    + name;
        }

        private static String method(int access, String name, String descriptor, ClassInfo owner) {
            int[] at = {1};
            List<String> params = new ArrayList<>();
            while (descriptor.charAt(at[0]) != ')') {
                params.add(type(descriptor, at));
            }
            at[0]++;
            String returns = type(descriptor, at);
            int shown = access & ~(0x0020 | 0x0080 | 0x0100 | 0x0800);
            if ((owner.access & INTERFACE) != 0) {
                shown &= ~PUBLIC;
                if ((access & ABSTRACT) != 0) {
                    shown &= ~ABSTRACT;
                } else if ((access & STATIC) == 0) {
                    return "default " + modifiers(shown) + returns + " " + name + "(" + String.join(", ", params) + ")";
                }
            }
            if (name.equals("<init>")) {
                return modifiers(shown)
                        + owner.name.substring(owner.name.lastIndexOf('/') + 1).replace('$', '.') + "("
                        + String.join(", ", params) + ")";
            }
            return modifiers(shown) + returns + " " + name + "(" + String.join(", ", params) + ")";
        }

        private static String modifiers(int access) {
            StringBuilder s = new StringBuilder();
            if ((access & PUBLIC) != 0) {
                s.append("public ");
            }
            if ((access & PROTECTED) != 0) {
                s.append("protected ");
            }
            if ((access & ABSTRACT) != 0) {
                s.append("abstract ");
            }
            if ((access & STATIC) != 0) {
                s.append("static ");
            }
            if ((access & FINAL) != 0) {
                s.append("final ");
            }
            return s.toString();
        }

        private static String type(String d, int[] at) {
            char c = d.charAt(at[0]++);
            switch (c) {
                case 'B':
                    return "byte";
                case 'C':
                    return "char";
                case 'D':
                    return "double";
                case 'F':
                    return "float";
                case 'I':
                    return "int";
                case 'J':
                    return "long";
                case 'S':
                    return "short";
                case 'Z':
                    return "boolean";
                case 'V':
                    return "void";
                case '[':
                    return type(d, at) + "[]";
                case 'L': {
                    int end = d.indexOf(';', at[0]);
                    String name = d.substring(at[0], end).replace('/', '.');
                    at[0] = end + 1;
                    return name;
                }
                default:
                    throw new IllegalArgumentException("bad descriptor " + d);
            }
        }
    }
}
